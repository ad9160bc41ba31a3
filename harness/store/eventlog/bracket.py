"""The compaction bracket: ``compaction/start`` … ``compaction/end`` around one compaction.

Both engines and manual compaction write their events inside it::

    with compaction_bracket(log, engine="dsh", trigger="pressure") as bracket:
        ...  # summary, replace: events that may cite bracket.start.seq

1. :func:`refuse_if_busy` — the one busy check: an unclosed start of this process is the lock,
   so a second compaction is refused (:class:`CompactionBusyError`) before anything is written;
2. ``compaction/start`` ``{"engine", "compaction_id", "trigger"}`` — appended on entry;
3. ``compaction/end`` ``{"compaction_id", "error"}`` — appended on exit, ``error`` None on
   success or ``"<Type>: <message>"`` for the exception that left the block (which is then
   re-raised). When the log can no longer be written the end is not attempted: the unclosed
   start stays in place as the lock (a reopened log reports it as stale and compacts again).

The events are DeepSeek-Harness's (its log format; the tests pin it), and one id format
(:func:`new_compaction_id`) serves both engines.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

from harness.compaction.record import EngineName
from harness.errors import CompactionBusyError, EventLogError
from harness.store.eventlog.events import Event
from harness.store.eventlog.log import EventLog

__all__ = ["Bracket", "compaction_bracket", "new_compaction_id", "refuse_if_busy"]


@dataclass
class Bracket:
    """One open bracket: its id and start event; ``end`` is set once the end is appended."""

    compaction_id: str
    start: Event
    end: Event | None = None


def new_compaction_id() -> str:
    """A fresh compaction id (32 hex digits), the same format for both engines."""
    return uuid.uuid4().hex


def refuse_if_busy(log: EventLog) -> None:
    """CompactionBusyError while an unclosed ``compaction/start`` of this process holds the
    lock (:meth:`EventLog.open_compaction`)."""
    busy = log.open_compaction()
    if busy is not None:
        raise CompactionBusyError(
            f"compaction/start at seq {busy.seq} ({busy.data.get('compaction_id')}) is not "
            "closed: a compaction is in progress"
        )


@contextlib.contextmanager
def compaction_bracket(log: EventLog, *, engine: EngineName, trigger: str) -> Iterator[Bracket]:
    """Refuse if busy, append ``compaction/start``, yield the :class:`Bracket`, and append
    ``compaction/end`` with the error (or None) on the way out; see the module docstring."""
    refuse_if_busy(log)
    compaction_id = new_compaction_id()
    start = log.append(
        "compaction/start", {"engine": engine, "compaction_id": compaction_id, "trigger": trigger}
    )
    bracket = Bracket(compaction_id, start)
    try:
        yield bracket
    except Exception as exc:
        _close_failed(log, compaction_id, exc)
        raise
    bracket.end = log.append("compaction/end", {"compaction_id": compaction_id, "error": None})


def _close_failed(log: EventLog, compaction_id: str, error: Exception) -> None:
    if log.write_error is not None:
        return  # the log cannot be written: the unclosed start stays as the lock
    with contextlib.suppress(EventLogError, OSError):
        log.append(
            "compaction/end",
            {"compaction_id": compaction_id, "error": f"{type(error).__name__}: {error}"},
        )
