"""DeepSeek-Harness messages (content blocks) and ctxlab's :class:`~harness.messages.Message`.

dsh keeps every message as ``{id, role, content: [blocks], source}``: a user message is the
``user/message`` event's data itself; ``assistant/message`` and ``tool/result`` carry it as
``data.message``. A tool result is a *user*-role message holding one ``tool-result`` block,
``source: {kind: 'tool', callId}``; a compaction checkpoint a user message with
``source: {kind: 'plugin', plugin: 'compact', compactionId}``.

:func:`read_message` reads one into a Message the way dsh's DeepSeek adapter puts it on the
wire (text blocks joined with ``""``, reasoning likewise, tool calls in order); a block it cannot
read (an image, an unknown type) raises :class:`~harness.errors.ContentFormatError`, never an
empty message. :func:`write_message` is the inverse for what ctxlab writes (one text block).
:func:`price_message` is dsh's token-meter heuristic over the blocks themselves, so a message
of several text blocks (dsh's checkpoint has three) is priced as dsh prices it.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from harness.content_blocks import read_content
from harness.errors import ContentFormatError
from harness.messages import CHECKPOINT_NAME, SUMMARY_NAME, Message, ToolCall
from harness.meter.dsh_heuristic import utf16_units

__all__ = [
    "CHECKPOINT_PLUGIN",
    "message_of",
    "price_blocks",
    "price_message",
    "read_message",
    "write_message",
]

CHECKPOINT_PLUGIN = "compact"
"""``source.plugin`` of a dsh compaction checkpoint (``compactCheckpointSource``)."""

SUMMARY_PLUGIN = "ctxlab-agentscope-summary"
"""``source.plugin`` ctxlab writes for an AgentScope summary (dsh has no such message)."""

_OVERHEAD = 4


def message_of(event_type: str, data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The dsh message an event carries: ``data`` for a user message, else ``data.message``."""
    message = data if event_type == "user/message" else data.get("message")
    if not isinstance(message, Mapping):
        raise ContentFormatError(f"a {event_type} without a message")
    return message


def read_message(event_type: str, message: Mapping[str, Any]) -> Message:
    """The ctxlab Message of a dsh surface event's message; ContentFormatError when its
    content or shape cannot be read."""
    role = message.get("role")
    source = message.get("source")
    if not isinstance(source, Mapping) or not isinstance(source.get("kind"), str):
        raise ContentFormatError(f"a {event_type} message without a source")
    blocks = read_content(message.get("content"))
    if not isinstance(message.get("content"), list):
        raise ContentFormatError(f"a {event_type} message whose content is not a block list")
    if event_type == "assistant/message":
        if role != "assistant" or blocks.tool_results:
            raise ContentFormatError(
                "an assistant/message must be an assistant message of text, "
                "reasoning and tool calls"
            )
        calls = tuple(ToolCall(*call) for call in blocks.tool_calls)
        return Message.assistant(blocks.text, calls, reasoning_content=blocks.reasoning)
    if role != "user" or blocks.tool_calls or blocks.reasoning is not None:
        raise ContentFormatError(f"a {event_type} must carry a user-role message of text")
    if event_type == "tool/result":
        if len(blocks.tool_results) != 1 or blocks.text:
            raise ContentFormatError("a tool/result must hold exactly one tool-result block")
        result = blocks.tool_results[0]
        if source.get("kind") != "tool" or source.get("callId") != result.tool_call_id:
            raise ContentFormatError("a tool/result whose source does not name its call")
        return Message.tool(result.tool_call_id, result.text)
    if blocks.tool_results:
        raise ContentFormatError("a user/message holding a tool-result block")
    return Message.user(blocks.text, name=_name_of(source))


def _name_of(source: Mapping[str, Any]) -> str | None:
    if source.get("kind") != "plugin":
        return None
    if source.get("plugin") == CHECKPOINT_PLUGIN:
        return CHECKPOINT_NAME
    return SUMMARY_NAME if source.get("plugin") == SUMMARY_PLUGIN else None


def write_message(
    message: Message, *, provider: str, model: str, compaction_id: str | None = None
) -> dict[str, Any]:
    """The dsh message for ``message`` (a fresh id; one text block; a checkpoint's source names
    ``compaction_id``)."""
    base: dict[str, Any] = {"id": str(uuid.uuid4())}
    if message.role == "assistant":
        content: list[dict[str, Any]] = []
        if message.reasoning_content:
            content.append({"type": "reasoning", "text": message.reasoning_content})
        if message.content:
            content.append({"type": "text", "text": message.content})
        content += [
            {"type": "tool-call", "id": c.id, "name": c.name, "arguments": c.arguments}
            for c in message.tool_calls
        ]
        source: dict[str, Any] = {"kind": "model", "provider": provider, "model": model}
        return base | {"role": "assistant", "content": content, "source": source}
    if message.role == "tool":
        return base | _tool_result(message.tool_call_id or "", message.content)
    if message.role != "user":
        raise ContentFormatError(f"a {message.role} message is no dsh surface message")
    if message.name == CHECKPOINT_NAME:
        source = {"kind": "plugin", "plugin": CHECKPOINT_PLUGIN, "compactionId": compaction_id}
    elif message.name == SUMMARY_NAME:
        source = {"kind": "plugin", "plugin": SUMMARY_PLUGIN}
    else:
        source = {"kind": "user"}
    text = [{"type": "text", "text": message.content}]
    return base | {"role": "user", "content": text, "source": source}


def _tool_result(call: str, text: str) -> dict[str, Any]:
    block = {
        "type": "tool-result",
        "toolCallId": call,
        "content": [{"type": "text", "text": text}],
        "isError": False,
    }
    return {"role": "user", "content": [block], "source": {"kind": "tool", "callId": call}}


def price_blocks(blocks: Sequence[Any]) -> int:
    """dsh's ``estimateContent``: per block ``ceil(len/4) + 4`` (text, reasoning), a tool call
    its name and arguments, a tool result its content, an unknown block its JSON."""
    total = 0
    for block in blocks:
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind in ("text", "reasoning"):
            total += math.ceil(utf16_units(block["text"]) / 4) + _OVERHEAD
        elif kind == "tool-call":
            total += math.ceil(utf16_units(block["name"]) / 4)
            total += math.ceil(utf16_units(block["arguments"]) / 4) + _OVERHEAD
        elif kind == "tool-result":
            total += price_blocks(block.get("content") or ()) + _OVERHEAD
        else:
            text = json.dumps(block, ensure_ascii=False, separators=(",", ":"))
            total += _OVERHEAD + math.ceil(utf16_units(text) / 4)
    return total


def price_message(event_type: str, message: Mapping[str, Any]) -> int:
    """dsh's price of a surface node: its blocks + 4 for the role; 0 for an assistant message
    with no content (dsh derives no message from it)."""
    content = message.get("content") or []
    if event_type == "assistant/message" and not content:
        return 0
    return price_blocks(content) + _OVERHEAD
