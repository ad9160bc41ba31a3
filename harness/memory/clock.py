"""Instants as memory files write them: ISO-8601 UTC with nine fraction digits and a ``Z``.

``2026-10-30T12:33:04.123456789Z`` is 30 bytes, the size of the article's watermark file. An
instant is kept as integer nanoseconds since the epoch so that ordering is exact.

Daily entry headers use the same form, where the seed shows seconds only
(``## Memory Flush — 2026-10-30T12:33:04Z``). The deviation is deliberate: consolidation
decides freshness per entry from this stamp (see :mod:`harness.memory.consolidation`), and
with seconds a later entry of the same second would tie with the watermark and never be
consolidated. The recorded E2 cassette's consolidation and search requests also carry these
headers, so changing the format needs a new E2 recording. Claim row E2-FLUSH-HEADER.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, datetime

__all__ = [
    "EPOCH",
    "NanoClock",
    "SteppingClock",
    "SystemClock",
    "format_instant",
    "parse_instant",
    "peek",
]

EPOCH = 0
"""The watermark before the first consolidation."""

NanoClock = Callable[[], int]
"""Returns the current instant in nanoseconds since the epoch."""

_INSTANT = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$")


class SystemClock:
    """The wall clock, never going backwards within one process (ties broken by +1 ns)."""

    def __init__(self) -> None:
        self._last = 0

    def __call__(self) -> int:
        now = max(time.time_ns(), self._last + 1)
        self._last = now
        return now

    def peek(self) -> int:
        """Now, without taking a reading (see :func:`peek`)."""
        return max(time.time_ns(), self._last)


class SteppingClock:
    """A reproducible clock: starts at ``start`` and advances ``step_ns`` per reading."""

    def __init__(self, start: int, step_ns: int = 1_000_000) -> None:
        self.now = start
        self.step_ns = step_ns

    def __call__(self) -> int:
        self.now += self.step_ns
        return self.now

    def peek(self) -> int:
        """The last reading, without advancing (see :func:`peek`)."""
        return self.now


def peek(clock: NanoClock) -> int:
    """Now on ``clock`` for a check, without moving a reproducible clock on: its ``peek()``
    when it has one, else a reading. Checking that a ledger header is not in the future must
    not shift the instants the next entries get (E2's recorded requests carry them)."""
    method = getattr(clock, "peek", None)
    return int(method()) if callable(method) else clock()


def format_instant(nanos: int) -> str:
    """``YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`` for ``nanos`` since the epoch."""
    seconds, fraction = divmod(nanos, 1_000_000_000)
    stamp = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{fraction:09d}Z"


def parse_instant(text: str) -> int:
    """Inverse of :func:`format_instant`; accepts 0–9 fraction digits. Raises ``ValueError``."""
    match = _INSTANT.match(text.strip())
    if not match:
        raise ValueError(f"not an ISO-8601 UTC instant: {text!r}")
    moment = datetime.strptime(match.group(1), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    fraction = (match.group(2) or "").ljust(9, "0")
    return int(moment.timestamp()) * 1_000_000_000 + int(fraction or 0)


def utc_date(nanos: int) -> str:
    """The UTC calendar date of an instant, ``YYYY-MM-DD`` (names the daily file)."""
    return datetime.fromtimestamp(nanos // 1_000_000_000, UTC).strftime("%Y-%m-%d")
