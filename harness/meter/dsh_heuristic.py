"""DeepSeek-Harness's token meter heuristic: 4 characters per token plus small overheads.

* a text block: ``ceil(len / 4) + 4`` (an empty text block still costs 4); a tool call:
  ``ceil(name / 4) + ceil(arguments / 4) + 4``; a tool result: the price of its text block
  ``+ 4``; ``+ 4`` per message for the role;
* an assistant message with no content (no text, no reasoning, no tool call) is not a message
  at all: dsh's ``deriveEventMessage`` drops it from the transcript, so it costs 0;
* the system prompt: ``ceil(len / 4) + 4``; the tools: ``ceil(len(JSON) / 4) + 4``.

Lengths are UTF-16 units, as in JavaScript; a lone surrogate (which JavaScript strings may hold)
is one unit, never an error. dsh's README warns that CJK text and JSON schemas are underpriced at
4 characters per token; this is the heuristic it uses all the same.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from harness.messages import Message
from harness.model import ToolSchema

__all__ = ["OVERHEAD", "is_empty_assistant", "price_header", "price_message", "price_text"]

OVERHEAD = 4


def utf16_units(text: str) -> int:
    """The JavaScript length of ``text``; lone surrogates count one unit each."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def price_text(text: str) -> int:
    """``ceil(len / 4) + 4``."""
    return math.ceil(utf16_units(text) / 4) + OVERHEAD


def is_empty_assistant(message: Message) -> bool:
    """An assistant message with no content block: dsh derives no message from it."""
    return (
        message.role == "assistant"
        and not message.content
        and not message.reasoning_content
        and not message.tool_calls
    )


def price_message(message: Message) -> int:
    """One message: its blocks plus 4 for the role; 0 for an assistant message with no content."""
    if is_empty_assistant(message):
        return 0
    total = OVERHEAD
    if message.role == "tool":
        return total + price_text(message.content) + OVERHEAD
    if message.content or message.role == "user":
        total += price_text(message.content)  # a user message always has its text block
    if message.reasoning_content:
        total += price_text(message.reasoning_content)  # passed back, so it is in the request
    for call in message.tool_calls:
        total += math.ceil(utf16_units(call.name) / 4) + math.ceil(utf16_units(call.arguments) / 4)
        total += OVERHEAD
    return total


def price_header(messages: Sequence[Message], tools: Sequence[ToolSchema]) -> int:
    """The system prompt (and any reference message) and the tools' JSON."""
    head = sum(price_text(m.content) if m.role == "system" else price_message(m) for m in messages)
    if tools:
        text = json.dumps(list(tools), separators=(",", ":"), ensure_ascii=False)
        head += price_text(text)  # as JSON.stringify writes it: non-ASCII is not escaped
    return head
