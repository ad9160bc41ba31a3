"""dsh's token meter: the priced surface (:class:`Measurement`) of a request.

The prices are DeepSeek-Harness's heuristic (:mod:`harness.meter.dsh_heuristic`: 4 characters
per token plus small overheads, 0 for an assistant message with no content); the engine's meter
(:mod:`harness.meter`) anchors the total on the provider's usage where it can.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.messages import Message
from harness.meter.dsh_heuristic import price_header, price_message, price_text
from harness.model import ChatRequest

__all__ = ["Measurement", "measure", "price_message", "price_text"]


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
