"""The read side of an event log: the events, the surface folded from them and the indexes
kept beside it (:class:`LogFold`); :class:`~harness.store.eventlog.log.EventLog` adds the file,
its lock, appends and recovery.

Folding one event costs O(1) for an append: the manager, the per-node message cache and the
indexes behind :meth:`LogFold.open_compaction` and :meth:`LogFold.latest` are updated in place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from harness.errors import LogCorruptError, SurfaceError
from harness.messages import Message
from harness.store.eventlog.events import Event
from harness.store.eventlog.snapshot import NodeRuns, Snapshot
from harness.store.eventlog.surface import EventsView, Prefix, Surface, SurfaceManager

__all__ = ["END_SEED", "Listener", "LogFold"]

END_SEED = "session/end-seed"
"""Appended when a log is reopened: where the previous process's history ends."""

Listener = Callable[[Event], None]


class LogFold:
    """Events, their surface, the surface's messages (parsed once) and the latest event of
    each type and the event of each tool call."""

    def __init__(self, listeners: list[Listener] | None = None) -> None:
        self.listeners: list[Listener] = [] if listeners is None else listeners
        """Called with each event once it is folded in (this log's appends and those of other
        writers it catches up with): a meter can price what changed instead of everything."""
        self._manager = SurfaceManager()
        self._messages: dict[int, Message] = {}
        # The surface as messages, extended as nodes are appended and rebuilt after a replace
        # (the manager's replace generation moves), so a turn never re-walks the whole surface.
        self._surface_messages: list[Message] = []
        self._surface_generation = 0
        self._latest: dict[str, int] = {}  # event type -> seq of its latest event
        self._calls: dict[str, int] = {}  # tool call id -> seq of the assistant event
        self._calls_partial = False  # restored from a snapshot: the earlier calls not indexed
        self._runs = NodeRuns()  # the surface as runs, for the next snapshot

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

    def node_messages(self) -> list[tuple[int, Message]]:
        """``(seq, message)`` for each surface node, in model order."""
        return list(zip(self._manager.node_seqs, self._surface(), strict=True))

    def messages(self) -> list[Message]:
        """The surface as messages: the history the model sees."""
        return list(self._surface())

    def message_view(self) -> Sequence[Message]:
        """:meth:`messages` as kept, no copy (read it at once, never keep or change it); the same
        list only grows at its end, anything else is a new list (:mod:`harness.store.protocol`)."""
        return self._surface()

    def _surface(self) -> list[Message]:
        """The cached surface messages, brought up to date: O(new nodes) after appends."""
        nodes = self._manager.node_seqs
        generation = self._manager.replace_generation
        cache = self._surface_messages
        if generation != self._surface_generation or len(cache) > len(nodes):
            cache = self._surface_messages = []
            self._surface_generation = generation
        if len(cache) < len(nodes):
            new = nodes[len(cache) :]
            # those before a snapshot read straight from their lines, in one pass
            for seq, message in self._manager.messages(
                [s for s in new if s not in self._messages]
            ).items():
                if message is None:
                    raise SurfaceError(f"event {seq} is not a surface event")
                self._messages[seq] = message
            cache.extend(self.message(seq) for seq in new)
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

    def _call_seq(self, call_id: str) -> int | None:
        """The seq of the assistant event that made tool call ``call_id`` (the latest such),
        or None. After a reopen from a snapshot only the latest assistant event's calls are
        indexed; a call not among them has the events before the snapshot read once."""
        seq = self._calls.get(call_id)
        if seq is None and self._calls_partial:
            self._calls_partial = False
            self._calls = {}
            for event in self._manager.events:  # in order: a reused id keeps its latest
                self._index_calls(event)
            seq = self._calls.get(call_id)
        return seq

    def _restore_fold(self, snapshot: Snapshot, prefix: Prefix) -> None:
        """Start (empty) from ``snapshot``; ``prefix`` reads the events it skipped."""
        self._manager.restore(
            snapshot.seq, snapshot.nodes, snapshot.generation, snapshot.events, prefix
        )
        self._latest = dict(snapshot.latest)
        self._runs.seed(snapshot.runs, snapshot.generation, len(snapshot.nodes))
        assistant = self._latest.get("assistant/message")
        if assistant is not None:  # the calls a next tool result most likely answers
            self._index_calls(snapshot.events[assistant])
        self._calls_partial = True

    def _snapshot_fold(self) -> Snapshot:
        """The fold as a snapshot (its offset, marks and codec are the file's business)."""
        manager = self._manager
        return Snapshot(
            seq=len(manager),
            offset=0,
            generation=manager.replace_generation,
            nodes=(),
            latest=dict(self._latest),
            events={seq: manager.event(seq) for seq in set(self._latest.values())},
            runs=self._runs.of(manager.node_seqs, manager.replace_generation),
        )
