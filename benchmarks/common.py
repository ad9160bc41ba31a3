"""Rows, gates and timing helpers shared by the sections."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Row", "median_seconds", "timed"]


@dataclass(frozen=True)
class Row:
    """One line of the table."""

    section: str
    name: str
    value: float
    unit: str = "×"
    """``×`` for a ratio, ``%`` for an error, ``s``/``ms``/``µs`` for a time (never gated)."""
    gate: float | None = None
    """The row fails when ``value`` exceeds this."""
    enforced: bool = True
    """False: the gate is reported, not enforced (see ``note``)."""
    note: str = ""

    @property
    def failed(self) -> bool:
        return self.gate is not None and self.enforced and self.value > self.gate

    def verdict(self) -> str:
        if self.gate is None:
            return ""
        over = self.value > self.gate
        if not self.enforced:
            return f"≤ {self.gate:g}: {'over (report only)' if over else 'ok (report only)'}"
        return f"≤ {self.gate:g}: {'FAIL' if over else 'ok'}"


def timed(function: Callable[[], object]) -> float:
    """Seconds one call of ``function`` took. The garbage collector is paused for the call, so
    a collection that the setup's allocations made due is not charged to what is measured."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        function()
        return time.perf_counter() - start
    finally:
        if enabled:
            gc.enable()


def median_seconds(function: Callable[[], object], repeat: int) -> float:
    """The median of ``repeat`` timed calls."""
    return statistics.median(timed(function) for _ in range(repeat))
