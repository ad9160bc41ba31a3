"""How a conversation is shown to the memory model calls (flush)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.messages import Message

__all__ = ["REFERENCE_NAME", "clip_tail", "render_chunks", "render_conversation"]

REFERENCE_NAME = "harness_context"
"""The ``name`` of the injected reference message; never flushed back into memory."""

CALL_PREVIEW_CHARS = 500
RESULT_PREVIEW_CHARS = 1_000


def render_conversation(messages: Sequence[Message]) -> str:
    """``[ROLE]: body`` lines; system prompts, summaries and injected memory are left out."""
    return "\n".join(_lines(messages))


def render_chunks(messages: Sequence[Message], max_chars: int) -> list[str]:
    """:func:`render_conversation` in consecutive pieces of at most ``max_chars`` characters,
    split between messages; one message longer than that on its own is clipped to it. Joined,
    the pieces are the whole rendering when no message was clipped."""
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for line in _lines(messages):
        line = _clip(line, max(1, max_chars - len(TRUNCATED)))
        if current and size + 1 + len(line) > max_chars:
            chunks.append("\n".join(current))
            current, size = [], 0
        size += len(line) + (1 if current else 0)
        current.append(line)
    if current:
        chunks.append("\n".join(current))
    return chunks


def clip_tail(text: str, max_chars: int, note: str) -> str:
    """The last ``max_chars`` characters of ``text`` after ``note`` when it is longer."""
    return text if len(text) <= max_chars else note + "\n" + text[-max_chars:]


def _lines(messages: Sequence[Message]) -> list[str]:
    lines = []
    for message in messages:
        if message.role == "system" or message.is_summary or message.name == REFERENCE_NAME:
            continue
        lines.append(f"[{message.role.upper()}]: {_body(message)}")
    return lines


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


TRUNCATED = "...(truncated)"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + TRUNCATED
