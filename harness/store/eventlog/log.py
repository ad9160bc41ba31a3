"""The append-only event log: a JSONL file (or memory) and the surface folded from it.

Each line is one event (:class:`~harness.store.eventlog.events.Event`), appended, never
rewritten; ``durability`` (:mod:`harness.store.durability`) says whether each append is fsynced
or :meth:`EventLog.commit` flushes a turn's appends at once. Every open goes component by
component with ``O_NOFOLLOW`` (:class:`~harness.fs.path.WorkspacePath`: a swapped-in symlink is
a :class:`~harness.errors.PathEscapeError`). An append is checked (an invalid event raises
:class:`~harness.errors.SurfaceError` and writes nothing), written, then folded.

**Several processes may write one log**: every append takes an exclusive OS lock on the file,
folds what other writers appended since, then writes its line. A failed write leaves the tail
unknown, so the log refuses appends until it is reopened. :meth:`EventLog.replay` reads a file
without touching it. :meth:`EventLog.open` (under the lock) reads the newest valid snapshot
(:mod:`~harness.store.eventlog.snapshot`; a dsh file's is a sidecar dsh ignores) and the tail
after it, never the events before it (read when first asked for,
:mod:`~harness.store.eventlog.prefix`), moves a torn or unreadable last line aside
(:mod:`harness.store.torn`), and appends one ``session/end-seed``: an unclosed
``compaction/start`` before it is *stale*, one after it *live* (the lock, DeepSeek-Harness §A3).
Appending costs O(1) in the history's length; opening O(snapshot + tail).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from harness.errors import EventLogError, LogCorruptError, SurfaceError
from harness.fs import files
from harness.fs.locks import exclusive
from harness.fs.path import WorkspacePath
from harness.messages import Message
from harness.replies import INTERRUPTED_CODE, interrupted_result, pending_calls
from harness.store.durability import Durability, check_durability, syncs_each_append
from harness.store.eventlog import codec as formats
from harness.store.eventlog.codec import Codec, LogFormat, read_events
from harness.store.eventlog.events import Event, ReplaceOp, surface_type
from harness.store.eventlog.fold import END_SEED, LogFold
from harness.store.eventlog.marks import Marks
from harness.store.eventlog.prefix import PrefixEvents
from harness.store.eventlog.scan import Scan, read_at
from harness.store.eventlog.snapshot import (
    DEFAULT_SNAPSHOT_EVERY,
    Snapshot,
    read_snapshot,
    snapshot_path,
    write_snapshot,
)
from harness.store.statefile import utc_now
from harness.store.torn import set_aside

__all__ = ["END_SEED", "EventLog", "read_events"]

logger = logging.getLogger("harness.store.eventlog")

StampClock = Callable[[], str]
"""Returns the current instant as the log's ISO-8601 stamp (``memory.clock.NanoClock`` is the
other clock: nanoseconds, for the memory pipeline)."""


class EventLog(LogFold):
    """An append-only event log; ``path=None`` keeps it in memory only."""

    def __init__(
        self,
        path: Path | WorkspacePath | None = None,
        clock: StampClock = utc_now,
        format: LogFormat = "ctxlab",
        *,
        durability: Durability = "per-event",
        snapshot_every: int | None = DEFAULT_SNAPSHOT_EVERY,
    ) -> None:
        self.file = None if path is None else WorkspacePath.of(path)  # None: in memory only
        info = None if self.file is None else self.file.stat()
        if info is not None and info.st_size > 0:
            raise EventLogError(f"{self.file} already holds events; load it with EventLog.open")
        self.path = None if self.file is None else self.file.path  # for messages (I/O: file)
        self.origin = self.file  # where the events were read from (replay: file stays None)
        self.clock = clock
        self.codec: Codec = formats.make_codec(format, self.path)  # ctxlab's or dsh's format
        self.durability = check_durability(durability)  # per-turn: the owner calls commit()
        self.snapshot_every = snapshot_every
        """Snapshot at each compaction's end and every ``snapshot_every`` events; None: never
        (and none is read)."""
        self.recovered: list[str] = []  # what open() repaired, one sentence each
        self.write_error: str | None = None  # set by a failed write: appends refused until reopened
        super().__init__()
        self._size = 0  # bytes of the file this log has folded (written or read)
        self._lock_depth, self._lock_fd = 0, -1  # the locked file, read and cut through while held
        self._recovered_now: list[str] = []  # what the last catch-up dropped
        self._unsynced = False  # appended since the last commit, not yet fsynced
        self._snapshot_seq = 0  # the events the newest snapshot (read or written) covers
        self._marks = Marks()  # where the events sit in the file (a snapshot carries them)
        self._lines: dict[str, tuple[int, bytes]] = {}  # the line of each type's latest event
        self.opened_from_snapshot: int | None = None
        """How many events the snapshot :meth:`open` started from covered (None: it replayed
        the log from the start)."""

    @classmethod
    def open(
        cls,
        path: Path | WorkspacePath,
        clock: StampClock = utc_now,
        format: LogFormat | None = None,
        *,
        durability: Durability = "per-event",
        snapshot_every: int | None = DEFAULT_SNAPSHOT_EVERY,
    ) -> EventLog:
        """Load the log at ``path`` (empty if missing), move a torn or unreadable last line
        aside (``<log>.corrupt``), mark the resume with a ``session/end-seed``; a bad line
        elsewhere raises LogCorruptError. A valid snapshot stands for the events it covers and
        only the tail is replayed (one that fails its checks is ignored). The file keeps its
        format; ``format`` is a new file's; a dsh file's snapshot is a sidecar."""
        log = cls(None, clock, durability=durability, snapshot_every=snapshot_every)
        log.file = log.origin = WorkspacePath.of(path)
        log.path = log.file.path
        with contextlib.ExitStack() as held:
            try:  # one walk of the path: the descriptor locked is the one read and appended to
                held.enter_context(log._locked(create=False))  # PathEscapeError via a symlink
                head = read_at(log._lock_fd, 0, 4096)
            except FileNotFoundError:  # a new log: its file is made by the first append
                head = b""
            log.codec = formats.codec_for_head(head, log.path, format)
            if head:
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
        snapshot = None
        if self.snapshot_every is not None:
            snapshot = read_snapshot(self.file, self._lock_fd, self.codec.format)
        if snapshot is not None:
            try:
                self._restore(snapshot)
                self._catch_up()
                return
            except (LogCorruptError, SurfaceError, KeyError, TypeError, ValueError) as exc:
                note = "the tail after its snapshot does not fold (%s); replaying it all"
                logger.warning("%s: " + note, self.path, exc)
                self._reset()
                self.codec = formats.make_codec(self.codec.format, self.path)
        try:
            self._catch_up()
        except LogCorruptError as exc:
            from harness.store.eventlog.migrate import hint

            assert self.path is not None
            raise hint(self.path, exc) from exc

    def _restore(self, snapshot: Snapshot) -> None:
        assert self.file is not None
        self.codec.restore(snapshot.codec)  # KeyError, TypeError: not a state of this codec
        self._marks = Marks(snapshot.marks)
        self._lines = dict(snapshot.lines)
        format, count, offset = self.codec.format, snapshot.seq, snapshot.offset
        prefix = PrefixEvents(self.file, format, count, offset, self._marks)
        self._restore_fold(snapshot, prefix)
        self.codec.settle(prefix.stride)  # what the codec needs of the prefix: read back
        self._size = snapshot.offset
        self._snapshot_seq = self.opened_from_snapshot = snapshot.seq

    def _reset(self) -> None:
        LogFold.__init__(self, self.listeners)
        self._size = 0
        self._snapshot_seq, self.opened_from_snapshot = 0, None
        self._marks, self._lines = Marks(), {}

    @classmethod
    def replay(cls, path: Path | WorkspacePath, clock: StampClock = utc_now) -> EventLog:
        """An in-memory log folded from the file at ``path`` without touching the file (no
        lock, no truncation, no end-seed): for checks and reports while another log may still
        write to it. A torn last line is left out and noted in ``recovered``."""
        file = WorkspacePath.of(path)
        log = cls(None, clock)
        log.codec = formats.codec_of(file, None)
        scan = formats.scan_with(file, log.codec)
        log._fold(file.path, scan.events)
        log.origin = file
        log.recovered = scan.recovered
        return log

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
        """Write a snapshot of the fold now (file logs only; :mod:`.snapshot`)."""
        if self.file is None or self.write_error is not None:
            return
        with self._locked():
            self._catch_up()
            self._write_snapshot()

    def _maybe_snapshot(self, force: bool = False) -> None:
        if self.file is None or self.snapshot_every is None or self.write_error is not None:
            return
        since = len(self._manager) - self._snapshot_seq
        if since and (force or since >= self.snapshot_every):
            self._write_snapshot()

    def _write_snapshot(self) -> None:
        """Under the lock: replace the snapshot by one of the current fold. A snapshot is a
        cache: a failure to write it is logged, never raised."""
        assert self.file is not None
        format = self.codec.format
        folder, _, name = snapshot_path(self.file, format).relative.rpartition("/")
        count = len(self._manager)  # all in the file: the codec reads back what it needs
        self.codec.settle(PrefixEvents(self.file, format, count, self._size, self._marks).stride)
        marks, codec, lines = self._marks.tuples(), self.codec.state(), self._lines
        fold = dataclasses.replace(self._snapshot_fold(), marks=marks, codec=codec, lines=lines)
        try:
            # a temp file a writer killed mid-snapshot left (they are written under this lock)
            self.file.root.remove_temps(folder or ".", prefix=f".{name}.")
            write_snapshot(self.file, self._lock_fd, self._size, fold, format)
        except (OSError, KeyError) as exc:  # KeyError: a latest event whose line is unknown
            logger.warning("%s: no snapshot written (%s)", self.path, exc)
            return
        self._snapshot_seq = count

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
        call = self._call_seq(message.tool_call_id or "") if message.role == "tool" else None
        return self.append(
            surface_type(message),
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
            surface_type(message),
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

    def close_interrupted_calls(self) -> list[Event]:
        """Close the calls a crash left without results (see :mod:`harness.replies`):
        one ``tool/result`` each, marked ``interrupted``. Call it when resuming a session,
        never beside a live agent whose tools may still be running."""
        calls = pending_calls(self.messages())
        return [
            self.append_message(interrupted_result(call), interrupted=INTERRUPTED_CODE)
            for call in calls
        ]

    @contextlib.contextmanager
    def _locked(self, create: bool = True) -> Iterator[None]:
        """Hold the file's exclusive lock (re-entrant), its descriptor as ``_lock_fd``."""
        if self.file is None or self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        with exclusive(self.file, create=create) as fd:
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
        scan: Scan = self.codec.scan(self.path, raw, len(self._manager), at_start=not self._size)
        self._fold(self.path, scan.events)
        for seq, at in scan.marks:
            self._marks.add(seq, self._size + at)
        self._lines.update(scan.last_lines)
        self._size += scan.good_bytes
        if scan.torn:  # moved aside to <log>.corrupt, then cut: never deleted
            reason = "; ".join(scan.recovered)
            set_aside(self.file, self._size, raw[scan.good_bytes :], reason, fd)  # type: ignore[arg-type]
            self._recovered_now = [
                f"{note}, moved to {self.path.name}.corrupt" for note in scan.recovered
            ]

    def _write(self, event: Event) -> None:
        try:
            line = self.codec.encode(event) + "\n"
            start = 0  # where the event's line starts, past the preamble
            if not self._size:  # a new file: dsh's session header goes first
                preamble = self.codec.preamble(event)
                line, start = preamble + line, len(preamble.encode("utf-8"))
            payload = line.encode("utf-8")
        except (TypeError, ValueError) as exc:
            raise EventLogError(f"event {event.type} cannot be written as JSON: {exc}") from exc
        if self.file is None:
            return
        try:
            sync = syncs_each_append(self.durability)  # through the locked descriptor
            files.append_fd(self._lock_fd, line, sync)
            self._unsynced = self._unsynced or not sync
        except BaseException as exc:
            self.write_error = f"{type(exc).__name__}: {exc}"
            raise
        self._marks.add(event.seq, self._size + start)
        self._lines[event.type] = (event.seq, payload[start:-1])
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
