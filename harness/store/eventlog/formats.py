"""The names of the event-log formats (:mod:`harness.store.eventlog.codec` implements them):
apart so that each format's codec can name its own without importing the seam."""

from __future__ import annotations

from typing import Literal

__all__ = ["FORMATS", "LogFormat"]

LogFormat = Literal["ctxlab", "dsh"]
FORMATS: tuple[LogFormat, ...] = ("ctxlab", "dsh")
