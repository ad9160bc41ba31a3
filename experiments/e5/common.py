"""What E5's parts share: the source label, the clock's start, the user id and the Q&A config."""

from __future__ import annotations

from harness import CompactionConfig
from harness.memory import parse_instant
from lab import ARTICLE_METER

__all__ = ["SOURCE", "START", "USER", "qa_config"]

SOURCE = "scripted"
START = parse_instant("2026-10-30T12:33:04Z")
USER = "lab-user"
"""The seed's user id (its experiments' ``lab-user/``): the namespace run saves under it and
its claim expects that folder."""


def qa_config(trigger: int, keep: int) -> CompactionConfig:
    """Compaction by message count alone: no token trigger, no flush, no offload, no pruning."""
    return CompactionConfig.count_only(trigger, keep, meter=ARTICLE_METER)
