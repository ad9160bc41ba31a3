"""``select_compactable_range``: the oldest block of the surface that can be summarised."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.compaction.dsh.meter import Measurement
from harness.errors import SurfaceError
from harness.messages import Message

__all__ = ["CompactableRange", "select_compactable_range", "tool_pairing_balanced_before"]


@dataclass(frozen=True)
class CompactableRange:
    """Positions ``start..end`` (inclusive) of the surface to replace, always from the head."""

    start: int
    end: int
    seqs: tuple[int, ...]
    tokens: int
    """The shadowed nodes' price."""
    naive_cut: int
    """Where the retain budget cut before the pairing back-off."""


def tool_pairing_balanced_before(messages: Sequence[Message], cut: int) -> bool:
    """True when no tool call before position ``cut`` waits for a result at or after it."""
    open_calls = 0
    for message in messages[:cut]:
        open_calls += len(message.tool_calls)
        if message.role == "tool":
            open_calls -= 1
        if open_calls < 0:
            raise SurfaceError("corrupt surface: a tool result without an open call")
    return open_calls == 0


def select_compactable_range(
    nodes: Sequence[tuple[int, Message]], measurement: Measurement, retain_tokens: int
) -> CompactableRange | None:
    """Keep the shortest tail whose price reaches ``retain_tokens`` (at least the last node),
    move the cut toward the head until no call is separated from its result, and return the
    head block before it; None when nothing would be left to compact.

    The priced nodes must be exactly the current surface, else :class:`SurfaceError`.
    """
    seqs = tuple(seq for seq, _ in nodes)
    if tuple(seq for seq, _ in measurement.nodes) != seqs:
        raise SurfaceError("the priced nodes do not match the current surface (stale pricing)")
    prices = [tokens for _, tokens in measurement.nodes]
    cut, kept = len(nodes), 0
    while cut > 0 and (kept < retain_tokens or cut == len(nodes)):
        cut -= 1
        kept += prices[cut]
    naive = cut
    messages = [m for _, m in nodes]
    while cut > 0 and not tool_pairing_balanced_before(messages, cut):
        cut -= 1
    if cut <= 0:
        return None
    return CompactableRange(0, cut - 1, seqs[:cut], sum(prices[:cut]), naive)
