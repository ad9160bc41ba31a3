"""An answer to a summary call that is not a summary, refused before it replaces history.

A summary call can come back with something that only looks like an answer: nothing to read,
a tool call (the DSH request carries the agent's tools; a small model writes the call as text
even when it has none), or the next turns of the conversation instead of an account of it.
Taken as a summary, any of them replaces the compacted messages with nothing usable. Both
engines pass the call's outcome through :func:`checked`, which turns such an answer into a
failed summary: AgentScope's ``(Summary unavailable)`` path, DSH's summary failure.

The rule is deliberately narrow, so that a real summary, however poor, is never refused (every
summary answer in the shipped cassettes passes it). An answer is refused when

* **empty**: no letter or digit in it (blank, or only punctuation and markup);
* **tool-call-only**: it carries tool calls and no summary laid out in sections (no text, or a
  sentence such as "Let me check the log first."), or its whole text is tool-call markup
  (``<tool_call>…</tool_call>`` blocks, or JSON naming a function and its arguments);
* **transcript**: it opens with a speaker's turn (its first line starts ``User:``,
  ``Assistant:``, ``Human:``, ``AI:``, ``Tool:``, ``用户：`` or ``助手：``) and has
  no markdown section heading. A summary that quotes a turn further down, or that is laid out
  in sections, passes.

Not judged: a short plain reply in the assistant's voice ("Got it.") reads like a terse
summary, and no rule that is sure never to refuse a real one can tell them apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from harness.errors import ModelOutputError
from harness.messages import ToolCall
from harness.summary_outcome import SummaryOutcome

__all__ = ["checked", "not_a_summary"]

_SPEAKER = re.compile(
    r"""^\s*(?:>\s*)*(?:\*\*|__|\[|\()?\s*    # a quote, bold or a bracket; not a bullet
        (?:user|assistant|human|ai|tool|用户|助手)
        \s*(?:\*\*|__|\]|\))?\s*[:：]""",
    re.IGNORECASE | re.VERBOSE,
)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S", re.MULTILINE)
_TOOL_CALL_TAGS = re.compile(r"<tool_call>.*?</tool_call>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^```[\w-]*\s*\n?(.*?)\n?```$", re.DOTALL)


def not_a_summary(text: str, tool_calls: Sequence[ToolCall] = ()) -> str | None:
    """Why the answer ``text`` (with its ``tool_calls``) is not a summary, in one sentence;
    None when it may be one."""
    stripped = text.strip()
    if tool_calls and not _HEADING.search(stripped):
        names = ", ".join(call.name for call in tool_calls)
        return f"the summary call answered with a tool call ({names}) and no summary"
    if not any(ch.isalnum() for ch in stripped):
        return "the summary call returned no summary text"
    if _only_tool_calls(stripped):
        return "the summary call answered with tool-call markup and no summary"
    first = stripped.splitlines()[0]
    if _SPEAKER.match(first) and not _HEADING.search(stripped):
        return (
            "the summary call continued the conversation instead of summarising it "
            f"(its answer opens with a speaker's turn: {first[:60]!r})"
        )
    return None


def checked(outcome: SummaryOutcome) -> SummaryOutcome:
    """``outcome``, or a failed outcome naming why its answer is not a summary; a failure
    stays a failure (an answer of tool calls alone is named as such)."""
    response = outcome.response
    if response is None:
        return outcome
    if outcome.failed and not (response.message.tool_calls and not response.message.content):
        return outcome  # failed for its own reason (cut off, empty); a bare call is named
    reason = not_a_summary(response.message.content, response.message.tool_calls)
    if reason is None:
        return outcome
    return SummaryOutcome("", True, reason, response, ModelOutputError(reason))


def _only_tool_calls(text: str) -> bool:
    """Whether ``text`` is nothing but tool-call markup."""
    if _TOOL_CALL_TAGS.search(text) and not _TOOL_CALL_TAGS.sub("", text).strip():
        return True
    fenced = _FENCE.match(text)
    body = fenced.group(1).strip() if fenced else text
    try:
        value = json.loads(body)
    except ValueError:
        return False
    calls = value if isinstance(value, list) else [value]
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        calls = value["tool_calls"]
    return bool(calls) and all(_is_call(call) for call in calls)


def _is_call(value: Any) -> bool:
    """A JSON function call: ``{"name", "arguments"|"parameters"}``, or OpenAI's
    ``{"type": "function", "function": {...}}``."""
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("function"), dict):
        return _is_call(value["function"])
    keys = set(value) - {"id", "type"}
    return isinstance(value.get("name"), str) and keys in (
        {"name", "arguments"},
        {"name", "parameters"},
    )
