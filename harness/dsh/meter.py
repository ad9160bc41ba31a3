"""dsh's token meter: one fixed heuristic of 4 characters per token plus small overheads.

* a text block: ``ceil(len / 4) + 4``; a tool call: ``ceil(name / 4) + ceil(arguments / 4) + 4``;
  a tool result: the price of its text block ``+ 4``; ``+ 4`` per message for the role;
* the system prompt: ``ceil(len / 4) + 4``; the tools: ``ceil(len(JSON) / 4) + 4``.

Lengths are UTF-16 units, as in JavaScript. dsh's README warns that CJK text and JSON schemas
are underpriced at 4 characters per token; this is the heuristic it uses all the same.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from harness.messages import Message
from harness.model import ChatRequest

__all__ = ["Measurement", "measure", "price_message", "price_text"]

OVERHEAD = 4


def _units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def price_text(text: str) -> int:
    """``ceil(len / 4) + 4``."""
    return math.ceil(_units(text) / 4) + OVERHEAD


def price_message(message: Message) -> int:
    """One message: its blocks plus 4 for the role."""
    total = OVERHEAD
    if message.role == "tool":
        return total + price_text(message.content) + OVERHEAD
    if message.content:
        total += price_text(message.content)
    if message.reasoning_content:
        total += price_text(message.reasoning_content)  # passed back, so it is in the request
    for call in message.tool_calls:
        total += math.ceil(_units(call.name) / 4) + math.ceil(_units(call.arguments) / 4)
        total += OVERHEAD
    return total


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
    ``nodes`` (the surface as ``(seq, message)``)."""
    head = sum(
        price_text(m.content) if m.role == "system" else price_message(m) for m in header.messages
    )
    if header.tools:
        tools = json.dumps(list(header.tools), separators=(",", ":"), ensure_ascii=False)
        head += price_text(tools)  # as JSON.stringify writes it: non-ASCII is not escaped
    return Measurement(head, tuple((seq, price_message(m)) for seq, m in nodes))
