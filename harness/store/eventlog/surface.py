"""The surface: the event seqs the model sees, in order, folded from the log.

``append`` pushes the event's seq; a replace ``{op, start, end}`` names its span by **event
seqs** (DeepSeek-Harness's ``replacementRange``): ``start`` and ``end`` are looked up on the
current surface, that inclusive span is spliced out, the new seq takes its place and
``replace_generation`` increments. After ``u0, compaction/start, u2, u3, u4`` the replace
``{start: 2, end: 3}`` shadows the events with seqs 2 and 3. After a replace the seqs on the
surface no longer increase (the checkpoint has a high seq but sits at the head), so ``start``
may be a higher seq than ``end``; what must hold is that ``start`` sits at or before ``end``.

:func:`fold` replays a log from zero; :class:`SurfaceManager` is the same fold kept
incrementally by a live log, and both go through the same checks, so a live process and a
replay can never disagree. Folding one event costs O(1) for an append (the manager never
copies its event list or surface); a replace costs O(surface) for the lookup.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, overload

from harness.errors import SurfaceError, UnbalancedSurfaceError
from harness.messages import Message
from harness.store.eventlog.events import Event

__all__ = ["EventsView", "Prefix", "Surface", "SurfaceManager", "fold"]


class Prefix(Protocol):
    """Reads the events a snapshot let a reopen skip
    (:class:`~harness.store.eventlog.prefix.PrefixEvents`)."""

    def load(self, seqs: Iterable[int]) -> Mapping[int, Event]:
        """The events ``seqs``."""
        ...

    def all(self) -> list[Event]:
        """Every event it covers, in order."""
        ...

    def messages(self, seqs: Iterable[int]) -> Mapping[int, Message | None]:
        """The messages of the events ``seqs`` (None for one of another type)."""
        ...


@dataclass(frozen=True)
class Surface:
    """The model-visible history as event seqs."""

    nodes: tuple[int, ...] = ()
    """Event seqs in model order."""
    replace_generation: int = 0
    """How many replaces have landed (monotonic)."""


class EventsView(Sequence[Event]):
    """A read-only view of a growing event list: O(1) to take, equal to any sequence with the
    same events (a tuple of them included). A log reopened from a snapshot has not read the
    events before it: an access to one reads it; a walk over them all reads them all
    (``fill``), once."""

    __slots__ = ("_items", "_manager")

    def __init__(self, items: list[Event | None], manager: SurfaceManager | None = None) -> None:
        self._items = items
        self._manager = manager

    def _all(self) -> list[Event]:
        if self._manager is not None:
            self._manager.fill()
        return self._items  # type: ignore[return-value]  # no holes once filled

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Event, ...]: ...
    def __getitem__(self, index: int | slice) -> Event | tuple[Event, ...]:
        if isinstance(index, slice):
            return tuple(self._all()[index])
        item = self._items[index]
        if item is None and self._manager is not None:
            return self._manager.event(index if index >= 0 else len(self._items) + index)
        return self._all()[index] if item is None else item

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._all())

    def __reversed__(self) -> Iterator[Event]:
        return reversed(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventsView):
            return self._all() == other._all()
        if isinstance(other, (tuple, list)):
            items = self._all()
            return len(other) == len(items) and all(
                a == b for a, b in zip(items, other, strict=True)
            )
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EventsView({len(self._items)} events)"


class SurfaceManager:
    """Holds the events of a log and the surface folded from them; rejects invalid events."""

    def __init__(self) -> None:
        self._events: list[Event | None] = []
        self._nodes: list[int] = []
        self._generation = 0
        self._surface: Surface | None = Surface()
        self._filler: Prefix | None = None

    def restore(
        self,
        count: int,
        nodes: Sequence[int],
        generation: int,
        known: Mapping[int, Event],
        prefix: Prefix,
    ) -> None:
        """Start from a snapshot: ``count`` events of which only ``known`` are read;
        ``prefix`` reads the others when they are first asked for. The manager must be
        empty."""
        if self._events:
            raise SurfaceError("a snapshot can only be restored into an empty log")
        # the nodes (100,000 at 100K events) by C-level min and max, not one by one in Python
        outside = nodes and (min(nodes) < 0 or max(nodes) >= count)
        if outside or any(not 0 <= seq < count for seq in known):
            raise SurfaceError(f"the snapshot names events outside its {count}")
        self._events = [None] * count
        for seq, event in known.items():
            self._events[seq] = event
        self._nodes = list(nodes)
        self._generation = generation
        self._surface = None
        self._filler = prefix

    def fill(self) -> None:
        """Read the events a snapshot left unread (nothing when there are none)."""
        prefix, self._filler = self._filler, None
        if prefix is None:
            return
        found = prefix.all()
        for seq, event in enumerate(found[: len(self._events)]):
            if self._events[seq] is None:
                self._events[seq] = event
        if any(event is None for event in self._events):
            self._filler = prefix
            raise SurfaceError(f"the log holds {len(found)} events before its snapshot's tail")

    def load(self, seqs: Iterable[int]) -> None:
        """Read those of the events ``seqs`` a snapshot left unread, in one pass."""
        if self._filler is None:
            return
        missing = [seq for seq in seqs if self._events[seq] is None]
        if not missing:
            return
        found = self._filler.load(missing)
        for seq in missing:
            event = found.get(seq)
            if event is None or event.seq != seq:
                raise SurfaceError(f"event {seq} is not where the log's marks say")
            self._events[seq] = event

    def messages(self, seqs: Iterable[int]) -> Mapping[int, Message | None]:
        """The messages (None: not a surface event) of those of the events ``seqs`` a snapshot
        left unread, read from their lines without keeping an event (one asked for later is
        read then): what a reopen's first request needs of the events before the snapshot."""
        if self._filler is None:
            return {}
        missing = [seq for seq in seqs if self._events[seq] is None]
        return self._filler.messages(missing) if missing else {}

    @property
    def events(self) -> EventsView:
        """Every event applied so far; ``events[i].seq == i`` (a view, not a copy)."""
        return EventsView(self._events, self if self._filler is not None else None)

    @property
    def node_seqs(self) -> Sequence[int]:
        """The live surface's seqs (read it, never keep it: it changes with the log)."""
        return self._nodes

    @property
    def replace_generation(self) -> int:
        """How many replaces have landed."""
        return self._generation

    @property
    def surface(self) -> Surface:
        """The current surface (built once per change)."""
        if self._surface is None:
            self._surface = Surface(tuple(self._nodes), self._generation)
        return self._surface

    def event(self, seq: int) -> Event:
        """The event with this seq."""
        event = self._events[seq]
        if event is None:
            self.load((seq,))
            event = self._events[seq]
            assert event is not None  # load leaves no hole or raises
        return event

    def __len__(self) -> int:
        return len(self._events)

    def span(self, start: int, end: int) -> tuple[int, ...]:
        """The node seqs from seq ``start`` through seq ``end`` (inclusive) on the surface;
        SurfaceError unless both are on it and ``start`` sits at or before ``end``."""
        first, last = self.position(start), self.position(end)
        if first > last:
            raise SurfaceError(
                f"replace start seq {start} (position {first}) is after end seq {end} "
                f"(position {last})"
            )
        return tuple(self._nodes[first : last + 1])

    def position(self, seq: int) -> int:
        """Where the node with this seq sits on the surface; SurfaceError if it is not on it."""
        try:
            return self._nodes.index(seq)
        except ValueError:
            raise SurfaceError(f"replace seq {seq} is not on the surface") from None

    def check(self, event: Event) -> None:
        """Raise SurfaceError unless ``event`` can be the next event of this log."""
        if event.seq != len(self._events):
            raise SurfaceError(f"event seq {event.seq} is not the next seq {len(self._events)}")
        replace = event.replace_range
        if replace is None:
            return
        shadowed = self.span(*replace)
        cited = set(event.source_event_seqs)
        missing = [seq for seq in shadowed if seq not in cited]
        if missing:
            raise SurfaceError(
                f"replace event {event.seq} must cite every shadowed node; missing {missing}"
            )
        if event.type == "tool/result":
            self._check_tool_replace(event, shadowed)

    def apply(self, event: Event) -> None:
        """Check ``event``, then add it to the log and fold it into the surface."""
        self.check(event)
        self._events.append(event)
        replace = event.replace_range
        if replace is not None:
            first, last = self.position(replace[0]), self.position(replace[1])
            self._nodes[first : last + 1] = [event.seq]
            self._generation += 1
        elif event.is_surface:
            self._nodes.append(event.seq)
        else:
            return
        self._surface = None

    def require_balanced(self) -> None:
        """Raise UnbalancedSurfaceError when a tool result on the surface answers no call
        before it on the surface (DeepSeek-Harness: a negative balance is a corrupt surface)."""
        open_calls: set[str] = set()
        for seq in self._nodes:
            node = self.event(seq)
            message = node.data["message"]
            if node.type == "tool/result":
                call_id = message.get("tool_call_id")
                if call_id not in open_calls:
                    raise UnbalancedSurfaceError(
                        f"tool result {seq} ({call_id!r}) answers no call on the surface: "
                        "the surface is corrupt and cannot be compacted"
                    )
                open_calls.discard(call_id)
            for call in message.get("tool_calls") or ():
                open_calls.add(_call_id(call))

    def _check_tool_replace(self, event: Event, shadowed: tuple[int, ...]) -> None:
        # A replacing tool result (a pruned one) stands in for exactly one result of the
        # same call: it may change the content, never which call it answers.
        old = self.event(shadowed[0])
        if len(shadowed) != 1 or old.type != "tool/result":
            raise SurfaceError(
                f"replacing tool/result {event.seq} must shadow exactly one tool/result, "
                f"not seqs {list(shadowed)}"
            )
        new_id = event.data["message"].get("tool_call_id")
        old_id = old.data["message"].get("tool_call_id")
        if new_id != old_id:
            raise SurfaceError(
                f"replacing tool/result {event.seq} answers {new_id!r}, the shadowed "
                f"result {old.seq} answers {old_id!r}"
            )


def _call_id(call: Any) -> Any:
    return call.get("id") if hasattr(call, "get") else None


def fold(events: Iterable[Event]) -> Surface:
    """Replay ``events`` from zero; raises SurfaceError on the first invalid one."""
    manager = SurfaceManager()
    for event in events:
        manager.apply(event)
    return manager.surface
