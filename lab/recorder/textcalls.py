"""Reading tool calls that a model wrote as JSON text instead of the API's ``tool_calls``.

Small local instruct models (the Qwen2.5-Coder GGUF our cassettes are recorded with) answer a
tool request with a fenced JSON object such as ``{"name": "memory_search", "arguments": {...}}``
in the message text, and the server returns no ``tool_calls``. :class:`TextToolCalls` wraps a
model and turns such text into real tool calls, but only for objects whose ``name`` is one of
the offered tools and that carry an ``arguments`` (or ``parameters``) object. Call ids are derived
from the text, so a replayed cassette yields the same ids. It is used for the ``local`` provider
only, and experiments say so.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace

from harness import Message, ToolCall
from harness.model import ChatModel, ChatRequest, ChatResponse

__all__ = ["TextToolCalls", "parse_text_tool_calls"]

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_text_tool_calls(
    text: str, tool_names: set[str], first_number: int = 0
) -> tuple[ToolCall, ...]:
    """The tool calls written as JSON in ``text`` (fenced or bare), in order of appearance.

    Ids are ``call_text_<hash of text>_<number>``, numbered from ``first_number``.
    """
    candidates = _FENCE.findall(text) or [text]
    calls: list[ToolCall] = []
    for candidate in candidates:
        for obj in _json_objects(candidate.strip()):
            call = _as_call(obj, tool_names, text, first_number + len(calls))
            if call is not None:
                calls.append(call)
    return tuple(calls)


def _json_objects(text: str) -> list[object]:
    decoder = json.JSONDecoder()
    found, index = [], 0
    while (start := text.find("{", index)) != -1:
        try:
            obj, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            index = start + 1
            continue
        found.append(obj)
        index = end
    return found


def _as_call(obj: object, tool_names: set[str], text: str, number: int) -> ToolCall | None:
    if not isinstance(obj, dict) or obj.get("name") not in tool_names:
        return None
    if "arguments" not in obj and "parameters" not in obj:
        return None  # a mention of a tool, not a call
    arguments = obj.get("arguments", obj.get("parameters"))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return None
    if not isinstance(arguments, dict):
        return None
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
    return ToolCall(
        f"call_text_{digest}_{number}", obj["name"], json.dumps(arguments, ensure_ascii=False)
    )


class TextToolCalls:
    """A :class:`ChatModel` wrapper that reads JSON-text tool calls into real ones."""

    def __init__(self, model: ChatModel) -> None:
        self.model = model
        self._issued = 0  # numbers ids across replies, so a repeated call gets a fresh id

    @property
    def model_name(self) -> str:
        return self.model.model_name

    def complete(self, request: ChatRequest) -> ChatResponse:
        response = self.model.complete(request)
        names = {tool["function"]["name"] for tool in request.tools}
        message = response.message
        if message.tool_calls or not names or not message.content:
            return response
        calls = parse_text_tool_calls(message.content, names, self._issued)
        if not calls:
            return response
        self._issued += len(calls)
        converted = Message.assistant("", calls, reasoning_content=message.reasoning_content)
        converted.metadata["tool_calls_from_text"] = message.content
        return replace(response, message=converted, finish_reason="tool_calls")
