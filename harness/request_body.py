"""The chat-completions request body: as a dict (:func:`build`) and as the bytes the client
sends (:func:`encoded`).

The keys come in a stable order, since cassettes compare bodies: ``model``, ``messages``,
``tools``, ``tool_choice``, ``max_tokens``, then the client's ``params``, then the request's
own ``extra`` on top.

:func:`encoded` is ``json.dumps(build(...))`` (compact, non-ASCII kept) in UTF-8, byte for
byte; it writes each message as its :attr:`~harness.messages.Message.wire_bytes`, which a
message works out once. A history sent again with a few messages more is then a join of the
pieces it already had, not a new serialisation of every message: at turn 2,000 of a tool-calling
session (8,000 messages) serialising the body was 22–65 ms of a turn's CPU, nine tenths of it,
and it grew with the history (issue 48, ``benchmarks/turn_growth.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness import compact_json
from harness.model import ChatRequest

__all__ = ["build", "encoded"]

_HISTORY: Any = object()
"""Stands for the history in the dict :func:`encoded` serialises around it."""


def build(model: str, request: ChatRequest, params: Mapping[str, Any]) -> dict[str, Any]:
    """The body for ``request`` sent to ``model`` with every request's ``params``."""
    return _body(model, request, params, [message.to_wire() for message in request.messages])


def encoded(model: str, request: ChatRequest, params: Mapping[str, Any]) -> bytes:
    """``json.dumps(build(model, request, params))``, compact, non-ASCII kept, in UTF-8, each
    message's part its cached :attr:`~harness.messages.Message.wire_bytes`."""
    body = _body(model, request, params, _HISTORY)
    if body["messages"] is not _HISTORY:  # params or extra replaced the history itself
        return compact_json.dumps(build(model, request, params)).encode()
    head = compact_json.dumps({"model": body.pop("model")})[:-1]  # '{"model":...': still first
    del body["messages"]  # the second key, written here from its pieces
    rest = "," + compact_json.dumps(body)[1:] if body else "}"
    history = b",".join([message.wire_bytes for message in request.messages])
    return b"".join((f'{head},"messages":['.encode(), history, b"]", rest.encode()))


def _body(
    model: str, request: ChatRequest, params: Mapping[str, Any], messages: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": messages}
    if request.tools:
        body["tools"] = [dict(tool) for tool in request.tools]
    if request.tool_choice is not None:
        body["tool_choice"] = request.tool_choice
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    body.update(params)
    if request.max_tokens is not None and "max_tokens" in params:
        # max_tokens in params caps every answer; a request's own smaller limit wins
        body["max_tokens"] = min(request.max_tokens, int(params["max_tokens"]))
    body.update(request.extra)
    return body
