"""Closing tool calls a crash left without results.

A process killed between an assistant message that calls tools and the results of those calls
leaves a history whose last assistant message waits for results that will never come; every
later request would then fail pairing. On resume, each such call gets a synthetic tool result
saying the call was interrupted (what DeepSeek-Harness, code ``TOOL_OUTCOME_UNKNOWN``, and
Claude Code do), so the model knows the tool may or may not have run and the next call works.
The result carries ``metadata["interrupted"] = True``; both stores record it as such.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.messages import Message, ToolCall

__all__ = ["INTERRUPTED_CODE", "INTERRUPTED_TEXT", "interrupted_result", "pending_calls"]

INTERRUPTED_CODE = "TOOL_OUTCOME_UNKNOWN"
"""DeepSeek-Harness's code for a call whose outcome is unknown after a crash."""

INTERRUPTED_TEXT = (
    "[tool call interrupted: the session stopped before this call returned a result; "
    "it may or may not have run]"
)
"""The content of a synthetic result."""


def pending_calls(messages: Sequence[Message]) -> list[ToolCall]:
    """The calls of the last assistant message that have no result after it, when only tool
    results follow that message (the tail a crash mid-tool-round leaves); else none."""
    answered: set[str] = set()
    for message in reversed(messages):
        if message.role == "tool":
            answered.add(message.tool_call_id or "")
            continue
        if message.role != "assistant":
            return []
        return [call for call in message.tool_calls if call.id not in answered]
    return []


def interrupted_result(call: ToolCall) -> Message:
    """The synthetic result that closes ``call``."""
    message = Message.tool(call.id, INTERRUPTED_TEXT, tool_name=call.name)
    message.metadata["interrupted"] = INTERRUPTED_CODE
    return message
