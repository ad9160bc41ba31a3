"""Reading a message's ``content`` when it is a list of content blocks, not a string.

DeepSeek-Harness stores every message as blocks (``text``, ``reasoning``, ``tool-call``,
``tool-result``), and newer OpenAI-compatible servers send ``content`` as a list of parts
(``text`` / ``output_text``, Anthropic-style ``thinking`` and ``tool_use``). :func:`read_content`
reads the blocks ctxlab can carry into one :class:`BlockContent` — the texts joined with ``""``
(as dsh's DeepSeek adapter flattens them for the wire), the reasoning likewise, the tool calls
in order, the tool results — and raises :class:`~harness.errors.ContentFormatError` for anything
else (an image, an unknown block, a block without its text), so no content is ever dropped
without a word. The caller adds where the content came from (an event, a response).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.errors import ContentFormatError

__all__ = ["BlockContent", "ToolResultBlock", "read_content"]

_TEXT = frozenset({"text", "input_text", "output_text"})
_REASONING = frozenset({"reasoning", "thinking", "reasoning_text"})
_CALLS = frozenset({"tool-call", "tool_call", "tool_use", "function_call"})
_RESULTS = frozenset({"tool-result", "tool_result"})


@dataclass(frozen=True)
class ToolResultBlock:
    """One tool result block: the call it answers and its text."""

    tool_call_id: str
    text: str


@dataclass(frozen=True)
class BlockContent:
    """What a block list holds, in the fields a :class:`~harness.messages.Message` has."""

    text: str = ""
    reasoning: str | None = None
    """None when no reasoning block was present."""
    tool_calls: tuple[tuple[str, str, str], ...] = ()
    """``(id, name, arguments JSON text)`` per call, in order."""
    tool_results: tuple[ToolResultBlock, ...] = ()


def read_content(content: Any) -> BlockContent:
    """Read ``content`` (a string, None, or a list of blocks); ContentFormatError otherwise."""
    if content is None:
        return BlockContent()
    if isinstance(content, str):
        return BlockContent(text=content)
    if not isinstance(content, Sequence) or isinstance(content, (bytes, bytearray)):
        raise ContentFormatError(f"content is a {type(content).__name__}, not text or blocks")
    texts: list[str] = []
    reasoning: list[str] = []
    calls: list[tuple[str, str, str]] = []
    results: list[ToolResultBlock] = []
    for index, block in enumerate(content):
        if not isinstance(block, Mapping):
            raise ContentFormatError(f"content block {index} is a {type(block).__name__}")
        kind = block.get("type")
        if kind in _TEXT:
            texts.append(_text(block, index, "text"))
        elif kind in _REASONING:
            reasoning.append(_reasoning(block, index))
        elif kind in _CALLS:
            calls.append(_call(block, index))
        elif kind in _RESULTS:
            results.append(_result(block, index))
        else:
            raise ContentFormatError(
                f"content block {index} has type {kind!r}, which ctxlab cannot read "
                "(it reads text, reasoning, tool calls and tool results)"
            )
    return BlockContent(
        "".join(texts), "".join(reasoning) if reasoning else None, tuple(calls), tuple(results)
    )


def _text(block: Mapping[str, Any], index: int, key: str) -> str:
    value = block.get(key)
    if not isinstance(value, str):
        raise ContentFormatError(f"content block {index} ({block.get('type')}) has no text")
    return value


def _reasoning(block: Mapping[str, Any], index: int) -> str:
    for key in ("text", "thinking", "reasoning"):
        if isinstance(block.get(key), str):
            return str(block[key])
    raise ContentFormatError(f"content block {index} ({block.get('type')}) has no text")


def _call(block: Mapping[str, Any], index: int) -> tuple[str, str, str]:
    nested = block.get("function")
    function: Mapping[str, Any] = nested if isinstance(nested, Mapping) else block
    call_id = block.get("id", block.get("call_id"))
    name = function.get("name")
    if not isinstance(call_id, str) or not call_id or not isinstance(name, str) or not name:
        raise ContentFormatError(f"content block {index} ({block.get('type')}) needs id and name")
    arguments = function.get("arguments", function.get("input"))
    if not isinstance(arguments, str):
        arguments = json.dumps({} if arguments is None else arguments, ensure_ascii=False)
    return call_id, name, arguments


def _result(block: Mapping[str, Any], index: int) -> ToolResultBlock:
    call_id = block.get("toolCallId", block.get("tool_use_id", block.get("tool_call_id")))
    if not isinstance(call_id, str) or not call_id:
        raise ContentFormatError(f"content block {index} ({block.get('type')}) names no call")
    try:
        inner = read_content(block.get("content"))
    except ContentFormatError as exc:
        raise ContentFormatError(f"content block {index} ({block.get('type')}): {exc}") from exc
    if inner.reasoning is not None or inner.tool_calls or inner.tool_results:
        raise ContentFormatError(f"content block {index}: a tool result may hold only text")
    return ToolResultBlock(call_id, inner.text)
