"""E5's DeepSeek-Harness rows, as :mod:`experiments.e5.measures.dsh_mechanics` measures them:
pressure, overflow, range back-off, summary checks, the lock and the manual error classes. Part
of :class:`~experiments.e5.view.E5View`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Attempt", "Backoff", "DshMechanics", "Lock", "Overflow", "Pressure", "Stale"]


@dataclass(frozen=True)
class Pressure:
    """Pressure compaction on a 10,000-token window, just below and just above the threshold."""

    window: int
    threshold: int
    retain: int
    below_events: int
    below_calls: int
    above_events: int


@dataclass(frozen=True)
class Overflow:
    """Recovering from a context overflow, and a log with nothing to compact."""

    max_overflow_retries: int
    events: int
    messages_before: int
    messages_after: int
    uncompactable_events: int


@dataclass(frozen=True)
class Backoff:
    """A retain that cuts between a call and its result."""

    naive_cut: int | None
    cut: int | None
    impossible: bool
    """Whether a lone call/result pair has no compactable range."""


@dataclass(frozen=True)
class Attempt:
    """A compaction whose summary the engine refuses."""

    error: str
    """The SummaryError's message; empty when the compaction went through."""
    surface_unchanged: bool
    closed_with_error: bool


@dataclass(frozen=True)
class Lock:
    """What a live compaction/start does to the other compaction paths."""

    last_event_during_summary: str
    busy: tuple[str, ...]
    """The paths refused as busy: manual, pressure, overflow."""


@dataclass(frozen=True)
class Stale:
    """A compaction/start a crashed process left behind."""

    detected: bool
    busy: bool


@dataclass(frozen=True)
class DshMechanics:
    """The DeepSeek-Harness mechanics the seed states, measured."""

    pressure: Pressure
    overflow: Overflow
    backoff: Backoff
    smaller: Attempt
    truncated: Attempt
    lock: Lock
    stale: Stale
    manual_errors: dict[str, str]
    """The ManualCompactionError code each provoked failure gave (``none`` without an error)."""
