"""Rows, gates and timing helpers shared by the sections."""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

__all__ = [
    "CLOSE",
    "Row",
    "Spread",
    "cpu_and_wall",
    "median_seconds",
    "settled",
    "spread",
    "timed",
]


CLOSE = 0.10
"""How near its limit a gate's reading must be to be measured again (10 %)."""
AGAIN = 2
"""How many more times a section with a close gate is measured (its rows then read the median
of the three)."""


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
    def close(self) -> bool:
        """An enforced gate read within :data:`CLOSE` of its limit (either side; a reading
        exactly at it is a count, not a timing), or a measurement that says it was a stall
        (NaN): it is measured again before it is read."""
        if self.gate is None or not self.enforced:
            return False
        if math.isnan(self.value):
            return True
        # a count read exactly at its limit (1 line tokenised, gate 1) is no timing near it
        return self.value != self.gate and abs(self.value - self.gate) <= CLOSE * self.gate

    @property
    def failed(self) -> bool:
        return self.gate is not None and self.enforced and self.value > self.gate

    def verdict(self) -> str:
        if self.gate is None:
            return ""
        if math.isnan(self.value):
            return f"≤ {self.gate:g}: no reading"
        over = self.value > self.gate
        if not self.enforced:
            return f"≤ {self.gate:g}: {'over (report only)' if over else 'ok (report only)'}"
        return f"≤ {self.gate:g}: {'FAIL' if over else 'ok'}"


def timed(function: Callable[[], object]) -> float:
    """Seconds one call of ``function`` took, the garbage collector on (as a user runs it: a
    collection that a turn's allocations make due is part of what a turn costs). A full
    collection runs before, so the setup's garbage is not charged to the first call."""
    gc.collect()
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def cpu_and_wall(function: Callable[[], object]) -> tuple[float, float]:
    """``(CPU seconds, wall seconds)`` of one call of ``function`` (the garbage collector on,
    as in :func:`timed`). The CPU time leaves out waits (an fsync on a shared disk)."""
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    function()
    return time.process_time() - cpu, time.perf_counter() - wall


@dataclass(frozen=True)
class Spread:
    """The fastest, median and 95th-percentile of some timings."""

    low: float
    median: float
    p95: float


def spread(samples: list[float]) -> Spread:
    """:class:`Spread` of ``samples`` (p95 by the nearest rank)."""
    ordered = sorted(samples)
    rank = max(0, math.ceil(0.95 * len(ordered)) - 1)
    return Spread(ordered[0], statistics.median(ordered), ordered[rank])


def median_seconds(function: Callable[[], object], repeat: int) -> float:
    """The median of ``repeat`` timed calls."""
    return statistics.median(timed(function) for _ in range(repeat))


def settled(measure: Callable[[], list[Row]]) -> list[Row]:
    """``measure()``'s rows; when one of its gates reads close (:attr:`Row.close`), the section
    is measured :data:`AGAIN` more times and every row reads the median of its readings (a
    stall, NaN, left out), its note saying so."""
    first = measure()
    if not any(row.close for row in first):
        return first
    runs = [first, *(measure() for _ in range(AGAIN))]
    out = []
    for k, row in enumerate(first):
        same = [run[k] for run in runs if k < len(run) and run[k].name == row.name]
        readings = [r.value for r in same if not math.isnan(r.value)]
        if len(same) < len(runs) or not readings:
            out.append(row)
            continue
        shown = ", ".join(f"{v:.3g}" for v in readings)
        note = f"{row.note}; measured {len(runs)} times (a gate read close): {shown}, median"
        out.append(replace(row, value=statistics.median(readings), note=note.lstrip("; ")))
    return out
