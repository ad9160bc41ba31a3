"""The surface: the event seqs the model sees, in order, folded from the log.

``append`` pushes the event's seq; a replace ``{op, start, end}`` looks ``start`` and ``end`` up
by **position** on the current surface, splices that inclusive span out, puts the new seq in
its place and increments ``replace_generation``. After a replace the seqs on the surface no
longer increase (the checkpoint has a high seq but sits at the head), which is why ranges are
always positions, never seq intervals. :func:`fold` replays a log from zero;
:class:`SurfaceManager` is the same fold kept incrementally by a live log, and both go through
the same checks, so a live process and a replay can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from harness.errors import SurfaceError
from harness.eventlog.events import Event

__all__ = ["Surface", "SurfaceManager", "fold"]


@dataclass(frozen=True)
class Surface:
    """The model-visible history as event seqs."""

    nodes: tuple[int, ...] = ()
    """Event seqs in model order."""
    replace_generation: int = 0
    """How many replaces have landed (monotonic)."""


class SurfaceManager:
    """Holds the events of a log and the surface folded from them; rejects invalid events."""

    def __init__(self) -> None:
        self._events: list[Event] = []
        self._nodes: list[int] = []
        self._generation = 0

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event applied so far; ``events[i].seq == i``."""
        return tuple(self._events)

    @property
    def surface(self) -> Surface:
        """The current surface."""
        return Surface(tuple(self._nodes), self._generation)

    def event(self, seq: int) -> Event:
        """The event with this seq."""
        return self._events[seq]

    def __len__(self) -> int:
        return len(self._events)

    def span(self, start: int, end: int) -> tuple[int, ...]:
        """The node seqs at positions ``start..end`` (inclusive); SurfaceError unless both
        positions exist and ``start <= end``."""
        size = len(self._nodes)
        if not (0 <= start <= end < size):
            raise SurfaceError(
                f"replace span {start}..{end} is not on the surface (positions 0..{size - 1})"
            )
        return tuple(self._nodes[start : end + 1])

    def check(self, event: Event) -> None:
        """Raise SurfaceError unless ``event`` can be the next event of this log."""
        if event.seq != len(self._events):
            raise SurfaceError(f"event seq {event.seq} is not the next seq {len(self._events)}")
        replace = event.replace_range
        if replace is None:
            return
        shadowed = self.span(*replace)
        missing = [seq for seq in shadowed if seq not in event.source_event_seqs]
        if missing:
            raise SurfaceError(
                f"replace event {event.seq} must cite every shadowed node; missing {missing}"
            )
        if event.type == "tool/result":
            self._check_tool_replace(event, shadowed)

    def apply(self, event: Event) -> Surface:
        """Check ``event``, then add it to the log and fold it into the surface."""
        self.check(event)
        self._events.append(event)
        replace = event.replace_range
        if replace is not None:
            start, end = replace
            self._nodes[start : end + 1] = [event.seq]
            self._generation += 1
        elif event.is_surface:
            self._nodes.append(event.seq)
        return self.surface

    def _check_tool_replace(self, event: Event, shadowed: tuple[int, ...]) -> None:
        # A replacing tool result (a pruned one) stands in for exactly one result of the
        # same call: it may change the content, never which call it answers.
        old = self._events[shadowed[0]]
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


def fold(events: Iterable[Event]) -> Surface:
    """Replay ``events`` from zero; raises SurfaceError on the first invalid one."""
    manager = SurfaceManager()
    for event in events:
        manager.apply(event)
    return manager.surface
