"""How a conversation is shown to the memory model calls (flush)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.messages import Message

__all__ = ["REFERENCE_NAME", "render_conversation"]

REFERENCE_NAME = "harness_context"
"""The ``name`` of the injected reference message; never flushed back into memory."""

CALL_PREVIEW_CHARS = 500
RESULT_PREVIEW_CHARS = 1_000


def render_conversation(messages: Sequence[Message]) -> str:
    """``[ROLE]: body`` lines; system prompts, summaries and injected memory are left out."""
    lines = []
    for message in messages:
        if message.role == "system" or message.is_summary or message.name == REFERENCE_NAME:
            continue
        lines.append(f"[{message.role.upper()}]: {_body(message)}")
    return "\n".join(lines)


def _body(message: Message) -> str:
    if message.role == "tool":
        name = message.metadata.get("tool_name", "tool")
        return f"[tool_result: {name}] {_clip(message.content, RESULT_PREVIEW_CHARS)}"
    parts = [message.content] if message.content else []
    parts += [
        f"[tool_call: {c.name}({_clip(c.arguments, CALL_PREVIEW_CHARS)})]"
        for c in message.tool_calls
    ]
    return " ".join(parts)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "...(truncated)"
