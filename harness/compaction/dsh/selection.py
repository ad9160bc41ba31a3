"""``select_compactable_range``: the oldest block of the surface that can be summarised.

Tool pairing is counted exactly as DeepSeek-Harness counts it (``tool-pairing.ts``): over the
*whole* surface, an assistant message adds one per tool call and a tool result takes one away; a
cut is balanced when the count there is 0, and a count below 0 anywhere on the surface (a result
with no open call) means a corrupt surface, on which the selection itself raises
:class:`~harness.errors.UnbalancedSurfaceError` before answering, unless the retain budget keeps
the whole surface: then, as in dsh, nothing is selected and pairing is never counted. Calls
are counted, not matched by id, as dsh does: ``[user, assistant(c1), tool(c2), user]`` is
balanced after the tool result and compacts ``0..2`` in both (dsh's rule is kept over
ctxlab's stricter id matching, so the engine selects what dsh selects on every surface dsh
accepts; id mismatches are still refused by the AgentScope history and by ``ctxlab compact``'s
idle check, which are not dsh's selection).

The prices come with the surface as a :class:`Measurement`, :func:`measure`'s pricing of a
request with DeepSeek-Harness's heuristic (:mod:`harness.meter.dsh_heuristic`: 4 characters per
token plus small overheads, 0 for an assistant message with no content); the engine's meter
(:mod:`harness.meter`) anchors the total on the provider's usage where it can.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.errors import SurfaceError, UnbalancedSurfaceError
from harness.messages import Message
from harness.meter.dsh_heuristic import price_header, price_message
from harness.model import ChatRequest

__all__ = [
    "CompactableRange",
    "Measurement",
    "cut_balance",
    "measure",
    "select_compactable_range",
    "tool_pairing_balanced_before",
]


@dataclass(frozen=True)
class Measurement:
    """The priced request: header (system prompt, reference material, tools) and nodes."""

    header_tokens: int
    nodes: tuple[tuple[int, int], ...]
    """``(seq, tokens)`` along the surface."""

    @property
    def surface_tokens(self) -> int:
        return sum(tokens for _, tokens in self.nodes)

    @property
    def total(self) -> int:
        return self.header_tokens + self.surface_tokens


def measure(header: ChatRequest, nodes: Sequence[tuple[int, Message]]) -> Measurement:
    """Price a request whose first messages are ``header.messages`` and whose history is
    ``nodes`` (the surface as ``(seq, message)``), with dsh's heuristic."""
    head = price_header(header.messages, header.tools)
    return Measurement(head, tuple((seq, price_message(m)) for seq, m in nodes))


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


def cut_balance(nodes: Sequence[tuple[int, Message]]) -> list[bool]:
    """Whether each cut of the surface is balanced: entry ``i`` is the cut before position
    ``i``, the last one the cut after the tail. UnbalancedSurfaceError when a tool result has
    no open call (the count falls below 0), wherever it sits on the surface."""
    balanced, open_calls = [True], 0
    for seq, message in nodes:
        open_calls += len(message.tool_calls)
        if message.role == "tool":
            open_calls -= 1
            if open_calls < 0:
                raise UnbalancedSurfaceError(
                    f"tool result {seq} ({message.tool_call_id!r}) has no open tool call before "
                    "it on the surface: the surface is corrupt and cannot be compacted"
                )
        balanced.append(open_calls == 0)
    return balanced


def tool_pairing_balanced_before(messages: Sequence[Message], cut: int) -> bool:
    """True when no tool call before position ``cut`` waits for a result at or after it
    (counted over the whole surface, as :func:`cut_balance`)."""
    return cut_balance(list(enumerate(messages)))[cut]


def select_compactable_range(
    nodes: Sequence[tuple[int, Message]], measurement: Measurement, retain_tokens: int
) -> CompactableRange | None:
    """Keep the shortest tail whose price reaches ``retain_tokens`` (at least the last node),
    move the cut toward the head until no call is separated from its result, and return the
    head block before it; None when nothing would be left to compact.

    The priced nodes must be exactly the current surface, else :class:`SurfaceError`. When the
    retain budget keeps the whole surface the answer is None before pairing is looked at, as in
    dsh; otherwise a surface with a tool result and no open call raises
    :class:`UnbalancedSurfaceError`.
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
    if cut <= 0:  # everything is retained: nothing to select, pairing never looked at (dsh)
        return None
    balanced = cut_balance(nodes)  # raises on a corrupt surface, even past the cut
    while cut > 0 and not balanced[cut]:
        cut -= 1
    if cut <= 0:
        return None
    return CompactableRange(0, cut - 1, seqs[:cut], sum(prices[:cut]), naive)
