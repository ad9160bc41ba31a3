"""The append-only event log: a JSONL file (or memory) and the surface folded from it.

Each line is one event (:class:`~harness.eventlog.events.Event`), appended with
:func:`harness.files.append_text` (flushed and fsynced), never rewritten. An append is checked
first (an invalid event raises :class:`~harness.errors.SurfaceError` and writes nothing), then
written, then folded into the live surface, so the live surface only ever holds events that
reached the disk.

A write that fails leaves the file's tail unknown (nothing, part of the line, or all of it), so
the log refuses further appends until it is reopened; so does a file that grew behind the log's
back (a second writer would duplicate seqs). :meth:`EventLog.replay` reads a file without
touching it. :meth:`EventLog.open` drops a torn last line (a crash mid-append), reports it in
``recovered`` and as a warning, and appends one ``session/end-seed``: an unclosed
``compaction/start`` before it belongs to an earlier process (*stale*, reported), one after it
is *live* (the compaction lock, DeepSeek-Harness §A3).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from harness import files
from harness.errors import EventLogError, LogCorruptError, SurfaceError
from harness.eventlog.events import TYPE_OF_ROLE, Event, ReplaceOp
from harness.eventlog.surface import Surface, SurfaceManager
from harness.messages import Message
from harness.state import utc_now

__all__ = ["END_SEED", "EventLog", "read_events"]

logger = logging.getLogger("harness.eventlog")

END_SEED = "session/end-seed"
"""Appended when a log is reopened: where the previous process's history ends."""

_BRACKET = frozenset({"compaction/start", "compaction/end"})

Clock = Callable[[], str]


class EventLog:
    """An append-only event log; ``path=None`` keeps it in memory only."""

    def __init__(self, path: Path | None = None, clock: Clock = utc_now) -> None:
        if path is not None and path.exists() and path.stat().st_size > 0:
            raise EventLogError(f"{path} already holds events; load it with EventLog.open")
        self.path = Path(path) if path is not None else None
        self.clock = clock
        self.recovered: list[str] = []
        """What :meth:`open` repaired (a dropped torn last line), one sentence each."""
        self.write_error: str | None = None
        """Set when a write failed; the log then refuses appends until it is reopened."""
        self._manager = SurfaceManager()
        self._size = 0  # bytes this log has written or loaded: another writer shows as a change

    @classmethod
    def open(cls, path: Path, clock: Clock = utc_now) -> EventLog:
        """Load the log at ``path`` (empty if missing), drop a torn last line, and mark the
        resume with a ``session/end-seed``. A bad line elsewhere raises LogCorruptError."""
        path = Path(path)
        events, recovered, size = _scan(path)
        log = cls(None, clock)
        log._load(path, events)
        if size is not None:
            _truncate(path, size)
        log.path, log.recovered = path, recovered
        log._size = path.stat().st_size if path.exists() else 0
        for note in recovered:
            logger.warning("%s: %s", path, note)
        log._mark_resume()
        return log

    @classmethod
    def replay(cls, path: Path, clock: Clock = utc_now) -> EventLog:
        """An in-memory log folded from the file at ``path`` without touching the file (no
        truncation, no end-seed): for checks and reports while another log may still write
        to it. A torn last line is left out and noted in ``recovered``."""
        events, recovered, _ = _scan(Path(path))
        log = cls(None, clock)
        log._load(Path(path), events)
        log.recovered = recovered
        return log

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event, in order; ``events[i].seq == i``."""
        return self._manager.events

    @property
    def surface(self) -> Surface:
        """The live surface (the fold of :attr:`events`)."""
        return self._manager.surface

    def append(
        self,
        type: str,
        data: Mapping[str, Any] | None = None,
        *,
        surface_op: Literal["append"] | ReplaceOp | None = None,
        source_event_seqs: Sequence[int] = (),
    ) -> Event:
        """Check, write (one fsynced JSON line) and fold one event; returns it."""
        if self.write_error is not None:
            raise EventLogError(
                f"a write to {self.path} failed ({self.write_error}); reopen the log with "
                "EventLog.open to recover"
            )
        seq = len(self._manager)
        event = Event(seq, type, self.clock(), data or {}, surface_op, tuple(source_event_seqs))
        self._manager.check(event)
        self._write(event)
        self._manager.apply(event)
        return event

    def append_message(self, message: Message) -> Event:
        """Append ``message`` as a surface node; a tool result cites its call's event."""
        return self.append(
            _surface_type(message),
            {"message": message.to_record()},
            surface_op="append",
            source_event_seqs=self._call_event(message),
        )

    def replace_span(
        self, start: int, end: int, message: Message, *, extra_sources: Sequence[int] = ()
    ) -> Event:
        """Replace the nodes at positions ``start..end`` (inclusive) by ``message``; the event
        cites ``extra_sources`` then every shadowed node."""
        kind = _surface_type(message)
        shadowed = self._manager.span(start, end)
        return self.append(
            kind,
            {"message": message.to_record()},
            surface_op={"op": "replace", "start": start, "end": end},
            source_event_seqs=(*extra_sources, *shadowed),
        )

    def node_messages(self) -> list[tuple[int, Message]]:
        """``(seq, message)`` for each surface node, in model order."""
        return [(seq, self._message(seq)) for seq in self._manager.surface.nodes]

    def messages(self) -> list[Message]:
        """The surface as messages: the history the model sees."""
        return [self._message(seq) for seq in self._manager.surface.nodes]

    def open_compaction(self) -> Event | None:
        """The live lock: the latest ``compaction/start`` with no later ``compaction/end`` and
        no later ``session/end-seed`` (a compaction of this process, running or failed to
        close); None when no compaction holds the lock."""
        for event in reversed(self._manager.events):
            if event.type == "compaction/start":
                return event
            if event.type in ("compaction/end", END_SEED):
                return None
        return None

    def stale_compaction(self) -> Event | None:
        """An unclosed ``compaction/start`` left by an earlier process: the latest bracket
        event is a start and a ``session/end-seed`` follows it. Reported until the next
        compaction starts; it never blocks one."""
        seeded = False
        for event in reversed(self._manager.events):
            if event.type == END_SEED:
                seeded = True
            elif event.type in _BRACKET:
                return event if seeded and event.type == "compaction/start" else None
        return None

    def _load(self, path: Path, events: list[Event]) -> None:
        for event in events:
            try:
                self._manager.apply(event)
            except SurfaceError as exc:
                raise LogCorruptError(f"{path}:{event.seq + 1}: {exc}") from exc

    def _message(self, seq: int) -> Message:
        message = self._manager.event(seq).message
        assert message is not None  # surface nodes are surface events
        return message

    def _call_event(self, message: Message) -> tuple[int, ...]:
        if message.role != "tool":
            return ()
        for event in reversed(self._manager.events):
            if event.type != "assistant/message":
                continue
            calls = event.data["message"].get("tool_calls") or ()
            if any(call.get("id") == message.tool_call_id for call in calls):
                return (event.seq,)
        return ()

    def _write(self, event: Event) -> None:
        try:
            line = event.to_json() + "\n"
            line.encode("utf-8")
        except (TypeError, ValueError) as exc:
            raise EventLogError(f"event {event.type} cannot be written as JSON: {exc}") from exc
        if self.path is None:
            return
        found = self.path.stat().st_size if self.path.exists() else 0
        if found != self._size:
            self.write_error = f"the file has {found} bytes, this log wrote {self._size}"
            raise EventLogError(f"{self.path} changed outside this log ({self.write_error})")
        try:
            files.append_text(self.path, line)
        except BaseException as exc:
            self.write_error = f"{type(exc).__name__}: {exc}"
            raise
        self._size += len(line.encode("utf-8"))

    def _mark_resume(self) -> None:
        events = self._manager.events
        if events and events[-1].type != END_SEED:
            self.append(END_SEED, {"previous_events": len(events), "recovered": self.recovered})
        stale = self.stale_compaction()
        if stale is not None:
            logger.warning(
                "%s: compaction/start at seq %d (%s) was never closed: a compaction of an "
                "earlier process was interrupted; its partial events stay in the log",
                self.path,
                stale.seq,
                stale.data.get("compaction_id"),
            )


def _surface_type(message: Message) -> str:
    kind = TYPE_OF_ROLE.get(message.role)
    if kind is None:
        raise SurfaceError(f"{message.role} messages are not surface nodes")
    return kind


def read_events(path: Path) -> list[Event]:
    """The events of the log at ``path`` without changing the file (a torn last line is
    left out); LogCorruptError for a bad line elsewhere."""
    return _scan(Path(path))[0]


def _scan(path: Path) -> tuple[list[Event], list[str], int | None]:
    """The events, what was dropped, and the size to truncate to (None: nothing dropped)."""
    if not path.exists():
        return [], [], None
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    tail = lines.pop()  # the bytes after the last newline: empty unless an append was torn
    recovered = []
    if tail:
        number = len(lines) + 1
        recovered.append(f"dropped a torn last line {number} ({len(tail)} bytes, no newline)")
    elif lines and not _readable(lines[-1]):
        dropped = lines.pop()
        tail = dropped + b"\n"
        recovered.append(f"dropped an unreadable last line {len(lines) + 1} ({len(dropped)} bytes)")
    events = [_parse(path, number, line) for number, line in enumerate(lines, 1)]
    return events, recovered, (len(raw) - len(tail) if tail else None)


def _readable(line: bytes) -> bool:
    try:
        json.loads(line.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return False
    return True


def _parse(path: Path, number: int, line: bytes) -> Event:
    try:
        event = Event.from_json(line.decode("utf-8"))
    except (ValueError, TypeError, EventLogError) as exc:
        raise LogCorruptError(f"{path}:{number}: unreadable event: {exc}") from exc
    if event.seq != number - 1:
        raise LogCorruptError(f"{path}:{number}: event seq {event.seq}, expected {number - 1}")
    return event


def _truncate(path: Path, size: int) -> None:
    with path.open("r+b") as handle:
        handle.truncate(size)
        handle.flush()
        os.fsync(handle.fileno())
