"""The append-only event log: a JSONL file (or memory) and the surface folded from it.

Each line is one event (:class:`~harness.store.eventlog.events.Event`), appended with
:func:`harness.files.append_text` (flushed and fsynced), never rewritten. The file is a
:class:`~harness.workspace_path.WorkspacePath`: every open (the lock, the catch-up read, the
append, the truncation of a torn tail) goes component by component from the workspace with
``O_NOFOLLOW``, so an ``events/`` folder swapped for a symlink mid-run is refused with
:class:`~harness.errors.PathEscapeError`, never read or written through. An append is checked
first (an invalid event raises :class:`~harness.errors.SurfaceError` and writes nothing), then
written, then folded into the live surface, so the live surface only ever holds events that
reached the disk.

**Several processes may write one log** (two agents, ``ctxlab compact`` beside an agent):
every append takes an exclusive OS lock on the file (:mod:`~harness.store.eventlog.oslock`), reads
and folds whatever other writers appended since (so its seq is re-checked against the file's
tail under the lock), then writes its line. :meth:`EventLog.sync` does the catching up alone.
A reader never takes a half-written last line for corruption: bytes after the last newline
are left out (:mod:`~harness.store.eventlog.scan`).

A write that fails leaves the file's tail unknown (nothing, part of the line, or all of it), so
the log refuses further appends until it is reopened. :meth:`EventLog.replay` reads a file
without touching it. :meth:`EventLog.open` (under the lock) drops a torn last line, reports it
in ``recovered`` and as a warning, and appends one ``session/end-seed``: an unclosed
``compaction/start`` before it belongs to an earlier process (*stale*, reported), one after it
is *live* (the compaction lock, DeepSeek-Harness §A3).

Appending costs O(1) in the history's length: one line is written and the in-memory fold,
the per-node message cache and the indexes behind :meth:`EventLog.open_compaction` and
:meth:`EventLog.latest` are updated in place. Opening is linear.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from harness import files
from harness.errors import EventLogError, LogCorruptError, SurfaceError
from harness.interrupted import INTERRUPTED_CODE, interrupted_result, pending_calls
from harness.messages import Message
from harness.store.durability import Durability, check_durability, syncs_each_append
from harness.store.eventlog.events import TYPE_OF_ROLE, Event, ReplaceOp
from harness.store.eventlog.oslock import exclusive
from harness.store.eventlog.scan import Scan, read_at, scan_bytes, scan_file
from harness.store.eventlog.snapshot import (
    DEFAULT_SNAPSHOT_EVERY,
    SNAPSHOT_SUFFIX,
    Snapshot,
    read_snapshot,
    write_snapshot,
)
from harness.store.eventlog.surface import EventsView, Surface, SurfaceManager
from harness.store.statefile import utc_now
from harness.store.torn import set_aside
from harness.workspace_path import WorkspacePath

__all__ = ["END_SEED", "EventLog", "read_events"]

logger = logging.getLogger("harness.store.eventlog")

END_SEED = "session/end-seed"
"""Appended when a log is reopened: where the previous process's history ends."""

_BRACKET = frozenset({"compaction/start", "compaction/end"})

StampClock = Callable[[], str]
"""Returns the current instant as the log's ISO-8601 stamp (``memory.clock.NanoClock`` is the
other clock: nanoseconds, for the memory pipeline)."""
Listener = Callable[[Event], None]


class EventLog:
    """An append-only event log; ``path=None`` keeps it in memory only."""

    def __init__(
        self,
        path: Path | WorkspacePath | None = None,
        clock: StampClock = utc_now,
        *,
        durability: Durability = "per-event",
        snapshot_every: int | None = DEFAULT_SNAPSHOT_EVERY,
    ) -> None:
        self.file = None if path is None else WorkspacePath.of(path)
        """Where the log is kept (None: in memory only)."""
        info = None if self.file is None else self.file.stat()
        if info is not None and info.st_size > 0:
            raise EventLogError(f"{self.file} already holds events; load it with EventLog.open")
        self.path = None if self.file is None else self.file.path
        """The file's path, for messages and reports (I/O goes through :attr:`file`)."""
        self.origin = self.file
        """The file the events were read from (:meth:`replay` sets it, :attr:`file` stays
        None: a replayed log never writes)."""
        self.clock = clock
        self.durability = check_durability(durability)
        """When appends reach the disk (:mod:`harness.store.durability`); ``per-event`` for a
        log made directly, the session's setting when the builder opens it. With
        ``per-turn`` the owner calls :meth:`commit` at the end of each turn."""
        self.snapshot_every = snapshot_every
        """Write a snapshot (:mod:`~harness.store.eventlog.snapshot`) at each compaction's end
        and every ``max(snapshot_every, surface size)`` events; None: never."""
        self.recovered: list[str] = []
        """What :meth:`open` repaired (a dropped torn last line), one sentence each."""
        self.write_error: str | None = None
        """Set when a write failed; the log then refuses appends until it is reopened."""
        self.listeners: list[Listener] = []
        """Called with each event once it is folded in (this log's appends and those of other
        writers it catches up with): a meter can price what changed instead of everything."""
        self._manager = SurfaceManager()
        self._size = 0  # bytes of the file this log has folded (written or read)
        self._lock_depth = 0
        self._lock_fd = -1  # the locked file, read and truncated through while held
        self._messages: dict[int, Message] = {}
        # The surface as messages, extended as nodes are appended and rebuilt after a replace
        # (the manager's replace generation moves), so a turn never re-walks the whole surface.
        self._surface_messages: list[Message] = []
        self._surface_generation = 0
        self._latest: dict[str, int] = {}  # event type -> seq of its latest event
        self._calls: dict[str, int] = {}  # tool call id -> seq of the assistant event
        self._recovered_now: list[str] = []  # what the last catch-up dropped
        self._unsynced = False  # appended since the last commit, not yet fsynced
        self._snapshot_seq = 0  # the events the newest snapshot (read or written) covers
        self.opened_from_snapshot: int | None = None
        """How many events the snapshot :meth:`open` started from covered (None: it replayed
        the log from the start)."""

    @classmethod
    def open(
        cls,
        path: Path | WorkspacePath,
        clock: StampClock = utc_now,
        *,
        durability: Durability = "per-event",
        snapshot_every: int | None = DEFAULT_SNAPSHOT_EVERY,
    ) -> EventLog:
        """Load the log at ``path`` (empty if missing), move a torn or unreadable last line
        aside (to ``<log>.corrupt``), and mark the resume with a ``session/end-seed``. A bad
        line elsewhere raises LogCorruptError. A valid snapshot is read instead of the events
        it covers, and only the tail after it is replayed (a snapshot that fails its checks is
        ignored: the log is replayed from the start)."""
        log = cls(None, clock, durability=durability, snapshot_every=snapshot_every)
        log.file = log.origin = WorkspacePath.of(path)
        log.path = log.file.path
        if log.file.exists():  # PathEscapeError through a symlink
            with log._locked():
                log._load()
                log.recovered = list(log._recovered_now)
                for note in log.recovered:
                    logger.warning("%s: %s", log.path, note)
                log._mark_resume()
                log._maybe_snapshot()
        return log

    def _load(self) -> None:
        """Under the lock, on an empty log: the newest valid snapshot, then the tail."""
        assert self.file is not None
        folder, _, name = self.file.relative.rpartition("/")
        # a snapshot's temp file left by a writer killed mid-write (snapshots are written
        # under this lock, so none is being written now)
        self.file.root.remove_temps(folder or ".", prefix=f".{name}{SNAPSHOT_SUFFIX}.")
        snapshot = None
        if self.snapshot_every is not None:
            snapshot = read_snapshot(self.file, self._lock_fd)
        if snapshot is not None:
            try:
                self._restore(snapshot)
                self._catch_up()
                return
            except (LogCorruptError, SurfaceError) as exc:
                logger.warning(
                    "%s: the tail after its snapshot does not fold (%s); replaying the log "
                    "from the start",
                    self.path,
                    exc,
                )
                self._reset()
        try:
            self._catch_up()
        except LogCorruptError as exc:
            from harness.store.eventlog.migrate import hint

            assert self.path is not None
            raise hint(self.path, exc) from exc

    def _restore(self, snapshot: Snapshot) -> None:
        self._manager.restore(
            snapshot.seq,
            snapshot.nodes,
            snapshot.generation,
            snapshot.events,
            self._read_prefix(snapshot.seq, snapshot.offset),
        )
        self._size = snapshot.offset
        self._latest = dict(snapshot.latest)
        for seq in snapshot.nodes:
            self._index_calls(snapshot.events[seq])
        self._snapshot_seq = self.opened_from_snapshot = snapshot.seq

    def _reset(self) -> None:
        self._manager = SurfaceManager()
        self._size = 0
        self._messages, self._surface_messages, self._surface_generation = {}, [], 0
        self._latest, self._calls = {}, {}
        self._snapshot_seq, self.opened_from_snapshot = 0, None

    def _read_prefix(self, count: int, offset: int) -> Callable[[], list[Event]]:
        """Reads the ``count`` events in the log's first ``offset`` bytes (never rewritten:
        an append-only log only grows), for the first access to an event a snapshot skipped."""
        file, path = self.file, self.path
        assert file is not None and path is not None

        def read() -> list[Event]:
            fd = file.open_fd(os.O_RDONLY)
            try:
                raw = read_at(fd, 0, offset)
            finally:
                os.close(fd)
            events = scan_bytes(path, raw, first_seq=0).events
            if len(events) != count:
                raise LogCorruptError(
                    f"{path}: {len(events)} events before its snapshot's offset, not {count}"
                )
            return events

        return read

    @classmethod
    def replay(cls, path: Path | WorkspacePath, clock: StampClock = utc_now) -> EventLog:
        """An in-memory log folded from the file at ``path`` without touching the file (no
        lock, no truncation, no end-seed): for checks and reports while another log may still
        write to it. A torn last line is left out and noted in ``recovered``."""
        file = WorkspacePath.of(path)
        scan = scan_file(file)
        log = cls(None, clock)
        log._fold(file.path, scan.events)
        log.origin = file
        log.recovered = scan.recovered
        return log

    @property
    def events(self) -> EventsView:
        """Every event, in order; ``events[i].seq == i`` (a read-only view, not a copy)."""
        return self._manager.events

    @property
    def surface(self) -> Surface:
        """The live surface (the fold of :attr:`events`)."""
        return self._manager.surface

    @property
    def replace_generation(self) -> int:
        """How many replaces have landed (``surface.replace_generation`` without a copy)."""
        return self._manager.replace_generation

    @property
    def node_seqs(self) -> Sequence[int]:
        """The surface's seqs, live (read it, never keep it)."""
        return self._manager.node_seqs

    def latest(self, type: str) -> Event | None:
        """The latest event of this type, in O(1)."""
        seq = self._latest.get(type)
        return None if seq is None else self._manager.event(seq)

    def append(
        self,
        type: str,
        data: Mapping[str, Any] | None = None,
        *,
        surface_op: Literal["append"] | ReplaceOp | None = None,
        source_event_seqs: Sequence[int] = (),
    ) -> Event:
        """Check, write (one fsynced JSON line, under the file lock, after folding in what
        other writers appended) and fold one event; returns it."""
        if self.write_error is not None:
            raise EventLogError(
                f"a write to {self.path} failed ({self.write_error}); reopen the log with "
                "EventLog.open to recover"
            )
        with self._locked():
            self._catch_up()
            seq = len(self._manager)
            sources = tuple(source_event_seqs)
            event = Event(seq, type, self.clock(), data or {}, surface_op, sources)
            self._manager.check(event)
            self._write(event)
            self._apply(event)
            self._maybe_snapshot(force=type == "compaction/end")
        return event

    def commit(self) -> None:
        """Flush what was appended since the last commit to the disk (one fsync): the group
        commit of a ``per-turn`` log, called at the end of a turn (and after the user message
        when it must be durable before the model call). Nothing to do for ``per-event`` (each
        append was fsynced) and ``os`` (the OS decides)."""
        if not self._unsynced or self.file is None:
            return
        if self.durability == "per-turn" and self.write_error is None:
            self.file.fsync()
        self._unsynced = False

    def snapshot(self) -> None:
        """Write a snapshot of the fold now (file logs only; see
        :mod:`~harness.store.eventlog.snapshot`)."""
        if self.file is None or self.write_error is not None:
            return
        with self._locked():
            self._catch_up()
            self._write_snapshot()

    def _maybe_snapshot(self, force: bool = False) -> None:
        if self.file is None or self.snapshot_every is None or self.write_error is not None:
            return
        since = len(self._manager) - self._snapshot_seq
        if since and (force or since >= max(self.snapshot_every, len(self._manager.node_seqs))):
            self._write_snapshot()

    def _write_snapshot(self) -> None:
        """Under the lock: replace the snapshot by one of the current fold. A snapshot is a
        cache: a failure to write it is logged, never raised."""
        assert self.file is not None
        manager = self._manager
        wanted = sorted({*manager.node_seqs, *self._latest.values()})
        try:
            write_snapshot(
                self.file,
                self._lock_fd,
                seq=len(manager),
                offset=self._size,
                generation=manager.replace_generation,
                nodes=manager.node_seqs,
                latest=self._latest,
                events=(manager.event(seq) for seq in wanted),
            )
        except OSError as exc:
            logger.warning("%s: no snapshot written (%s)", self.path, exc)
            return
        self._snapshot_seq = len(manager)

    def sync(self) -> int:
        """Fold in what other writers appended since this log last read the file; returns
        how many events that was (none once a write of this log failed)."""
        if self.file is None or self.file.kind() is None or self.write_error is not None:
            return 0  # after a failed write only a reopen may read (and repair) the tail
        before = len(self._manager)
        with self._locked():
            self._catch_up()
        return len(self._manager) - before

    def append_message(self, message: Message, **data: Any) -> Event:
        """Append ``message`` as a surface node (``data`` adds log-only fields next to it); a
        tool result cites its call's event."""
        call = self._calls.get(message.tool_call_id or "") if message.role == "tool" else None
        return self.append(
            _surface_type(message),
            {"message": message.to_record(), **data},
            surface_op="append",
            source_event_seqs=() if call is None else (call,),
        )

    def replace_seqs(
        self, start: int, end: int, message: Message, *, extra_sources: Sequence[int] = ()
    ) -> Event:
        """Replace the surface nodes from seq ``start`` through seq ``end`` by ``message``;
        the event cites ``extra_sources`` then every shadowed node."""
        shadowed = self._manager.span(start, end)
        return self.append(
            _surface_type(message),
            {"message": message.to_record()},
            surface_op={"op": "replace", "start": start, "end": end},
            source_event_seqs=(*extra_sources, *shadowed),
        )

    def replace_span(
        self, start: int, end: int, message: Message, *, extra_sources: Sequence[int] = ()
    ) -> Event:
        """Replace the nodes at surface **positions** ``start..end`` (inclusive): the event
        written names them by the seqs that sit there (:meth:`replace_seqs`)."""
        nodes = self._manager.node_seqs
        if not (0 <= start <= end < len(nodes)):
            raise SurfaceError(
                f"replace span {start}..{end} is not on the surface (positions 0..{len(nodes) - 1})"
            )
        return self.replace_seqs(nodes[start], nodes[end], message, extra_sources=extra_sources)

    def node_messages(self) -> list[tuple[int, Message]]:
        """``(seq, message)`` for each surface node, in model order."""
        return list(zip(self._manager.node_seqs, self._surface(), strict=True))

    def messages(self) -> list[Message]:
        """The surface as messages: the history the model sees."""
        return list(self._surface())

    def _surface(self) -> list[Message]:
        """The cached surface messages, brought up to date: O(new nodes) after appends."""
        nodes = self._manager.node_seqs
        generation = self._manager.replace_generation
        cache = self._surface_messages
        if generation != self._surface_generation or len(cache) > len(nodes):
            cache = self._surface_messages = []
            self._surface_generation = generation
        if len(cache) < len(nodes):
            cache.extend(self.message(seq) for seq in nodes[len(cache) :])
        return cache

    def message(self, seq: int) -> Message:
        """The message of surface event ``seq`` (parsed once, then cached)."""
        message = self._messages.get(seq)
        if message is None:
            message = self._manager.event(seq).message
            if message is None:
                raise SurfaceError(f"event {seq} is not a surface event")
            self._messages[seq] = message
        return message

    def require_balanced(self) -> None:
        """UnbalancedSurfaceError when a tool result on the surface answers no call on it."""
        self._manager.require_balanced()

    def close_interrupted_calls(self) -> list[Event]:
        """Close the calls a crash left without results (see :mod:`harness.interrupted`):
        one ``tool/result`` each, marked ``interrupted``. Call it when resuming a session,
        never beside a live agent whose tools may still be running."""
        calls = pending_calls(self.messages())
        return [
            self.append_message(interrupted_result(call), interrupted=INTERRUPTED_CODE)
            for call in calls
        ]

    def open_compaction(self) -> Event | None:
        """The live lock: the latest ``compaction/start`` with no later ``compaction/end`` and
        no later ``session/end-seed`` (a compaction of this process, running or failed to
        close); None when no compaction holds the lock."""
        start = self._latest.get("compaction/start", -1)
        if start > max(self._latest.get("compaction/end", -1), self._latest.get(END_SEED, -1)):
            return self._manager.event(start)
        return None

    def stale_compaction(self) -> Event | None:
        """An unclosed ``compaction/start`` left by an earlier process: the latest bracket
        event is a start and a ``session/end-seed`` follows it. Reported until the next
        compaction starts; it never blocks one."""
        start = self._latest.get("compaction/start", -1)
        closed = self._latest.get("compaction/end", -1) > start
        if start >= 0 and not closed and self._latest.get(END_SEED, -1) > start:
            return self._manager.event(start)
        return None

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the file's exclusive lock (re-entrant within this log)."""
        if self.file is None or self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        with exclusive(self.file) as fd:
            self._lock_depth, self._lock_fd = 1, fd
            try:
                yield
            finally:
                self._lock_depth, self._lock_fd = 0, -1

    def _catch_up(self) -> None:
        """Under the lock: fold the bytes other writers appended since ``_size``; a torn tail
        (its writer died: we hold the lock) is truncated and noted."""
        self._recovered_now = []
        if self.path is None:
            return
        fd = self._lock_fd  # the file as locked: opened without following a symlink
        found = os.fstat(fd).st_size
        if found == self._size:
            return
        if found < self._size:
            self.write_error = f"the file has {found} bytes, this log folded {self._size}"
            raise EventLogError(f"{self.path} shrank behind this log ({self.write_error})")
        raw = read_at(fd, self._size, found - self._size)
        scan: Scan = scan_bytes(self.path, raw, first_seq=len(self._manager))
        self._fold(self.path, scan.events)
        self._size += scan.good_bytes
        if scan.torn:  # moved aside to <log>.corrupt, then cut: never deleted
            reason = "; ".join(scan.recovered)
            set_aside(self.file, self._size, raw[scan.good_bytes :], reason, fd)  # type: ignore[arg-type]
            self._recovered_now = [
                f"{note}, moved to {self.path.name}.corrupt" for note in scan.recovered
            ]

    def _fold(self, path: Path, events: list[Event]) -> None:
        for event in events:
            try:
                self._apply(event)
            except SurfaceError as exc:
                raise LogCorruptError(f"{path}:{event.seq + 1}: {exc}") from exc

    def _apply(self, event: Event) -> None:
        replace = event.replace_range
        self._manager.apply(event)
        self._latest[event.type] = event.seq
        self._index_calls(event)
        if replace is not None:  # shadowed nodes leave the cache; the log keeps them
            for seq in event.source_event_seqs:
                self._messages.pop(seq, None)
        for listener in self.listeners:
            listener(event)

    def _index_calls(self, event: Event) -> None:
        if event.type == "assistant/message":
            for call in event.data["message"].get("tool_calls") or ():
                self._calls[str(call.get("id", ""))] = event.seq

    def _write(self, event: Event) -> None:
        try:
            line = event.to_json() + "\n"
            payload = line.encode("utf-8")
        except (TypeError, ValueError) as exc:
            raise EventLogError(f"event {event.type} cannot be written as JSON: {exc}") from exc
        if self.file is None:
            return
        try:
            if syncs_each_append(self.durability):
                files.append_text(self.file, line)
            else:
                files.append_text(self.file, line, sync=False)
                self._unsynced = True
        except BaseException as exc:
            self.write_error = f"{type(exc).__name__}: {exc}"
            raise
        self._size += len(payload)

    def _mark_resume(self) -> None:
        events = self._manager.events
        if len(events) and events[-1].type != END_SEED:
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


def read_events(path: Path | WorkspacePath) -> list[Event]:
    """The events of the log at ``path`` without changing the file (a torn last line is
    left out); LogCorruptError for a bad line elsewhere."""
    return scan_file(WorkspacePath.of(path)).events
