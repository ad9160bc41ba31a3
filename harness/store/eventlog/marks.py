"""Where a log's events sit in its file: a sparse index from event seqs to byte offsets.

A snapshot (:mod:`~harness.store.eventlog.snapshot`) does not copy the events it covers; a
reopen reads them from the log when one is first asked for. To find event ``s`` without
reading every line before it, the log keeps a *mark* (``seq``, ``offset``) for the first line
that starts at or after each multiple of :data:`STRIDE` seqs (a dsh chunk row holds several
events: its mark names the first). Reading an event is then one read of at most one stride of
lines. The marks cost 16 bytes per :data:`STRIDE` events in memory and in each snapshot.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

__all__ = ["STRIDE", "Marks"]

STRIDE = 1024
"""A mark every this many events: a snapshot of 1M events carries 977 marks (about 18 KB),
and reading one event reads at most this many lines."""


class Marks:
    """The marks of one log, in file order (seqs and offsets both increasing)."""

    def __init__(self, marks: Iterable[tuple[int, int]] = ()) -> None:
        self.seqs: list[int] = []
        self.offsets: list[int] = []
        for seq, offset in marks:
            self.add(seq, offset)

    def add(self, seq: int, offset: int) -> None:
        """Note that a line starting at ``offset`` holds event ``seq`` first; kept when it is
        the first line at or past the next multiple of :data:`STRIDE`."""
        if not self.seqs or seq >= (self.seqs[-1] // STRIDE + 1) * STRIDE:
            self.seqs.append(seq)
            self.offsets.append(offset)

    def tuples(self) -> list[tuple[int, int]]:
        """The marks as ``(seq, offset)`` pairs."""
        return list(zip(self.seqs, self.offsets, strict=True))

    def block(self, seq: int, end: int) -> tuple[int, int, int]:
        """``(first seq, start, stop)``: the bytes holding event ``seq``, of a file whose
        marked lines end at byte ``end``; ValueError when ``seq`` is before the first mark."""
        at = bisect.bisect_right(self.seqs, seq) - 1
        if at < 0:
            raise ValueError(f"no mark at or before event {seq}")
        stop = self.offsets[at + 1] if at + 1 < len(self.offsets) else end
        return self.seqs[at], self.offsets[at], stop

    def blocks(self, seqs: Iterable[int], end: int) -> dict[tuple[int, int, int], list[int]]:
        """``seqs`` grouped by their :meth:`block`, each group in the order given: one lookup
        per run of seqs in the same block, not one per seq; ValueError as :meth:`block`."""
        grouped: dict[tuple[int, int, int], list[int]] = {}
        block: tuple[int, int, int] | None = None
        low, high = 0, 0  # the current block holds seqs low..high - 1 (high -1: to the end)
        for seq in seqs:
            if block is None or seq < low or 0 <= high <= seq:
                block = self.block(seq, end)
                at = bisect.bisect_right(self.seqs, seq)
                low, high = block[0], self.seqs[at] if at < len(self.seqs) else -1
            grouped.setdefault(block, []).append(seq)
        return grouped

    def __len__(self) -> int:
        return len(self.seqs)
