"""Reading a provider's reply strictly, before anything of it reaches a history.

A reply that cannot be trusted must never be appended: a history holding it could not be sent
again (a tool call without an id, or with an id used twice, makes every later request fail
pairing), so one bad reply would brick the session. Two defences:

* :func:`read_completion` turns a 2xx chat-completions body into a :class:`ChatResponse` or
  raises :class:`~harness.errors.ResponseFormatError` saying what is wrong: a role other than
  assistant, ``tool_calls`` that is not a list, a call that is not an object or has no function
  name, arguments or content of an impossible type, a ``usage`` figure that is not a whole
  non-negative number. Nothing is appended when it raises; the next call works as before.
* :func:`repair_tool_call_ids` is the documented repair for ids: a call with no id, or with an
  id already used in this reply or in the history, gets a deterministic id
  ``call_<16 hex digits of sha256(index, name, arguments)>`` (with ``_2``, ``_3``, ... added
  until it is unused). The agent applies it to every reply before appending it, whatever the
  model (HTTP client or scripted), through :class:`ToolCallIds`, which keeps the history's ids
  as it grows, so a reply is checked against what is new since the last one, never by walking
  the whole history again.

And closing the tool calls a crash left without results (:func:`pending_calls`,
:func:`interrupted_result`): a process killed between an assistant message that calls tools and
the results of those calls leaves a history whose last assistant message waits for results that
will never come; every later request would then fail pairing. On resume, each such call gets a
synthetic tool result saying the call was interrupted (what DeepSeek-Harness, code
``TOOL_OUTCOME_UNKNOWN``, and Claude Code do), so the model knows the tool may or may not have
run and the next call works. The result carries ``metadata["interrupted"] = True``; both stores
record it as such.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Container, Iterable, Mapping, Sequence
from typing import Any

from harness.content_blocks import BlockContent, read_content
from harness.errors import ContentFormatError, ResponseFormatError
from harness.messages import Message, ToolCall
from harness.model import ChatResponse, Usage

__all__ = [
    "INTERRUPTED_CODE",
    "INTERRUPTED_TEXT",
    "ToolCallIds",
    "interrupted_result",
    "parse_usage",
    "pending_calls",
    "read_completion",
    "repair_tool_call_ids",
]

logger = logging.getLogger("harness.client")


def read_completion(data: Mapping[str, Any], default_model: str) -> ChatResponse:
    """The reply in a chat-completions body; :class:`ResponseFormatError` when unreadable."""
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise ResponseFormatError("a body without choices")
    wire = choices[0].get("message")
    if not isinstance(wire, Mapping):
        raise ResponseFormatError("a body without choices[0].message")
    return ChatResponse(
        message=_assistant_message(wire),
        finish_reason=str(choices[0].get("finish_reason") or "stop"),
        usage=parse_usage(data),
        model=str(data.get("model") or default_model),
    )


def _assistant_message(wire: Mapping[str, Any]) -> Message:
    role = wire.get("role") or "assistant"
    if role != "assistant":
        raise ResponseFormatError(f"a reply whose role is {role!r}, not 'assistant'")
    reasoning = wire.get("reasoning_content")
    if reasoning is not None and not isinstance(reasoning, str):
        raise ResponseFormatError("a reply whose reasoning_content is not text")
    blocks = _content(wire.get("content"))
    if blocks.reasoning is not None:
        reasoning = (reasoning or "") + blocks.reasoning
    return Message.assistant(
        blocks.text,
        [*_tool_calls(wire.get("tool_calls")), *(ToolCall(*call) for call in blocks.tool_calls)],
        reasoning_content=reasoning,
    )


def _content(content: Any) -> BlockContent:
    """The reply's content: a string, null, or a list of content blocks (text, reasoning, tool
    calls: :mod:`harness.content_blocks`); anything else is a ResponseFormatError, never ``""``."""
    if not isinstance(content, (str, list, type(None))):
        raise ResponseFormatError(f"a reply whose content is a {type(content).__name__}, not text")
    try:
        blocks = read_content(content)
    except ContentFormatError as exc:
        raise ResponseFormatError(f"a reply whose content cannot be read: {exc}") from exc
    if blocks.tool_results:
        raise ResponseFormatError("a reply whose content holds a tool-result block")
    return blocks


def _tool_calls(calls: Any) -> list[ToolCall]:
    if calls is None:
        return []
    if not isinstance(calls, list):
        raise ResponseFormatError(
            f"a reply whose tool_calls is a {type(calls).__name__}, not a list"
        )
    return [_tool_call(index, call) for index, call in enumerate(calls)]


def _tool_call(index: int, call: Any) -> ToolCall:
    where = f"tool_calls[{index}]"
    if not isinstance(call, Mapping):
        raise ResponseFormatError(f"a reply whose {where} is not an object")
    function = call.get("function")
    if not isinstance(function, Mapping):
        raise ResponseFormatError(f"a reply whose {where} has no function object")
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise ResponseFormatError(f"a reply whose {where} has no function name")
    call_id = call.get("id")
    if isinstance(call_id, bool) or not isinstance(call_id, str | int | None):
        raise ResponseFormatError(f"a reply whose {where}.id is not a string")
    return ToolCall(
        id="" if call_id is None else str(call_id),
        name=name,
        arguments=_arguments(where, function.get("arguments")),
    )


def _arguments(where: str, arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    if arguments is None:
        return "{}"
    if isinstance(arguments, Mapping):
        return json.dumps(arguments, ensure_ascii=False)
    raise ResponseFormatError(f"a reply whose {where} arguments are a {type(arguments).__name__}")


# --- usage ---------------------------------------------------------------------------------------


def parse_usage(data: Mapping[str, Any]) -> Usage | None:
    """Normalise the usage of a chat-completions body; None when it has no ``usage``.

    The cached count is read from ``usage.prompt_tokens_details.cached_tokens`` (OpenAI),
    else ``usage.prompt_cache_hit_tokens`` (DeepSeek), else ``timings.cache_n`` (llama.cpp),
    else left unknown (None, not 0). A figure that is not a whole non-negative number (text,
    a bool, NaN, -1, 2.5) raises :class:`ResponseFormatError` naming it.
    """
    usage = data.get("usage")
    if not isinstance(usage, Mapping):
        return None
    details = usage.get("prompt_tokens_details")
    timings = data.get("timings")
    candidates = (
        ("usage.prompt_tokens_details.cached_tokens", details, "cached_tokens"),
        ("usage.prompt_cache_hit_tokens", usage, "prompt_cache_hit_tokens"),
        ("timings.cache_n", timings, "cache_n"),
    )
    cached = next(
        (
            _tokens(name, holder[key])
            for name, holder, key in candidates
            if isinstance(holder, Mapping) and holder.get(key) is not None
        ),
        None,
    )
    return Usage(
        prompt_tokens=_tokens("usage.prompt_tokens", usage.get("prompt_tokens") or 0),
        completion_tokens=_tokens("usage.completion_tokens", usage.get("completion_tokens") or 0),
        cached_tokens=cached,
    )


def _tokens(name: str, value: Any) -> int:
    integral = isinstance(value, float) and math.isfinite(value) and value.is_integer()
    if isinstance(value, bool) or not (isinstance(value, int) or integral) or value < 0:
        raise ResponseFormatError(f"a {name} that is not a token count: {value!r}")
    return int(value)


# --- tool-call ids -------------------------------------------------------------------------------


def repair_tool_call_ids(message: Message, history: Iterable[Message]) -> Message:
    """``message`` with every missing or reused tool-call id replaced by a deterministic one.

    An id is reused when an earlier call of ``message`` or any call in ``history`` has it.
    Returns ``message`` itself when nothing needed repair; logs each repair.
    """
    if not message.tool_calls:
        return message  # the common reply: nothing to check, and no walk over the history
    return _repaired(message, {call.id for earlier in history for call in earlier.tool_calls})


class ToolCallIds:
    """The tool-call ids of a growing history, so :meth:`repair` looks only at what is new.

    The ids are kept for the history last seen; when the next one starts with the same
    messages (the same objects at its head and at the old end: both stores hand out the
    messages they keep, and append only) only the messages after them are read. Anything else
    (a compaction replaced the head, a reply was never appended) reads the history again.
    """

    def __init__(self) -> None:
        self._ids: set[str] = set()
        self._seen = 0
        self._first: Message | None = None
        self._last: Message | None = None

    def taken(self, history: Sequence[Message], start: int = 0) -> set[str]:
        """Every tool-call id in ``history[start:]`` (the set is kept: read it, never change
        it). ``start`` skips a request's header (system prompt, reference messages)."""
        seen, count = self._seen, len(history) - start
        if seen and (
            count < seen
            or history[start] is not self._first
            or history[start + seen - 1] is not self._last
        ):
            self._ids, seen = set(), 0
        for index in range(start + seen, len(history)):
            for call in history[index].tool_calls:
                self._ids.add(call.id)
        self._seen = count
        self._first = history[start] if count > 0 else None
        self._last = history[-1] if count > 0 else None
        return self._ids

    def repair(self, message: Message, history: Sequence[Message], start: int = 0) -> Message:
        """:func:`repair_tool_call_ids` of ``message`` against ``history[start:]``, reading
        only the messages added since the last call."""
        if not message.tool_calls:
            return message
        return _repaired(message, self.taken(history, start))


def _repaired(message: Message, history_ids: Container[str]) -> Message:
    used: set[str] = set()
    calls: list[ToolCall] = []
    for index, call in enumerate(message.tool_calls):
        if not call.id or call.id in used or call.id in history_ids:
            fresh = _fresh_id(index, call, _Either(used, history_ids))
            logger.warning(
                "tool call %d (%s) had id %r; using %s", index, call.name, call.id, fresh
            )
            call = ToolCall(fresh, call.name, call.arguments)
        used.add(call.id)
        calls.append(call)
    if calls == list(message.tool_calls):
        return message
    return Message(
        role="assistant",
        content=message.content,
        tool_calls=tuple(calls),
        reasoning_content=message.reasoning_content,
        metadata={**message.metadata, "repaired_tool_call_ids": True},
    )


class _Either(Container[str]):
    """In either of two containers (no copy of the history's ids)."""

    def __init__(self, first: Container[str], second: Container[str]) -> None:
        self.first, self.second = first, second

    def __contains__(self, item: object) -> bool:
        return item in self.first or item in self.second


def _fresh_id(index: int, call: ToolCall, taken: Container[str]) -> str:
    seed = json.dumps([index, call.name, call.arguments], ensure_ascii=False)
    base = "call_" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:16]
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}_{n}"
    return candidate


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
