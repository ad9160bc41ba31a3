"""The body the client sends is ``json.dumps`` of its ``build_body`` in UTF-8, byte for byte,
while each message is serialised once however often its history is sent
(harness/request_body.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from support.loopback import ScriptedHTTPServer

from harness import compact_json, request_body
from harness.client import ChatClient
from harness.messages import Message, ToolCall
from harness.model import ChatRequest

texts = st.text(max_size=12)  # any code point: CJK, emoji, controls, lone surrogates
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | texts,  # NaN and infinities too
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)
KEYS = st.sampled_from(["model", "messages", "tools", "tool_choice", "max_tokens", "seed"])
fields = st.dictionaries(KEYS | texts, json_values, max_size=4)
calls = st.builds(ToolCall, id=texts, name=texts, arguments=texts)
messages = st.one_of(
    st.builds(Message.system, texts),
    st.builds(Message.user, texts, name=st.none() | texts),
    st.builds(
        Message.assistant, texts, st.lists(calls, max_size=2), reasoning_content=st.none() | texts
    ),
    st.builds(Message.tool, texts.filter(bool), texts, tool_name=st.none() | texts),
)
requests = st.builds(
    ChatRequest,
    messages=st.lists(messages, max_size=5).map(tuple),
    tools=st.lists(st.dictionaries(texts, json_values, max_size=2), max_size=2).map(tuple),
    tool_choice=st.none() | st.sampled_from(["auto", "none"]),
    max_tokens=st.none() | st.integers(1, 4096),
    extra=fields,
)
params = st.builds(  # a max_tokens in params is a number (the client caps a request's with it)
    lambda fields, cap: {**fields, "max_tokens": cap} if cap else fields,
    st.dictionaries(KEYS | texts, json_values, max_size=4).map(
        lambda d: {k: v for k, v in d.items() if k != "max_tokens"}
    ),
    st.none() | st.integers(1, 4096),
)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@given(requests, params, texts)
@example(  # params and the request's own fields replace the model and the history
    ChatRequest(messages=(Message.user("你好"),), extra={"messages": [], "model": "other"}),
    {"model": {"messages": []}},
    "m",
)
@example(ChatRequest(messages=()), {}, "")
def test_the_bytes_are_json_dumps_of_the_built_body(
    request: ChatRequest, params: dict[str, Any], model: str
) -> None:
    assert _outcome(lambda: request_body.encoded(model, request, params)) == _outcome(
        lambda: _dumps(request_body.build(model, request, params)).encode("utf-8")
    )


def _outcome(send: Callable[[], bytes]) -> bytes | type[Exception]:
    """The bytes, or the error's type: a lone surrogate (a model may write ``"\\ud800"``)
    has no UTF-8 form, and the body cannot be sent either way."""
    try:
        return send()
    except UnicodeEncodeError as error:
        return type(error)


@given(json_values)
@example({"temperature": 0.7, "nan": float("nan"), "big": float("inf"), "small": -1e-300})
@example(["上海\ud800", {"\x00": [None, True, 2**70]}])
def test_compact_json_writes_what_json_dumps_writes(value: Any) -> None:
    assert compact_json.dumps(value) == _dumps(value)


def test_a_message_is_serialised_once_however_often_its_history_is_sent(monkeypatch) -> None:
    serialised: list[Message] = []
    to_wire = Message.to_wire

    def counted(message: Message) -> dict[str, Any]:
        serialised.append(message)
        return to_wire(message)

    monkeypatch.setattr(Message, "to_wire", counted)
    history = [Message.system("be brief"), Message.user("上海港 booking?")]
    request_body.encoded("m", ChatRequest(messages=tuple(history)), {})
    assert len(serialised) == 2
    for turn in range(20):
        serialised.clear()
        call = ToolCall(id=f"c{turn}", name="grep", arguments='{"q": "上海"}')
        new = [Message.assistant("", [call]), Message.tool(f"c{turn}", "hit", tool_name="grep")]
        history += new
        request_body.encoded("m", ChatRequest(messages=tuple(history)), {"seed": 1})
        assert serialised == new  # only the messages this request added


def test_the_server_reads_the_bytes_of_the_built_body() -> None:
    request = ChatRequest(
        messages=(
            Message.system("简短回答"),
            Message.user("Weather in 上海?", name="ana"),
            Message.assistant("", [ToolCall("c1", "weather", '{"city":"上海"}')]),
            Message.tool("c1", "晴 ☀", tool_name="weather"),
        ),
        tools=({"type": "function", "function": {"name": "weather"}},),
        max_tokens=64,
        extra={"seed": 3},
    )
    with ScriptedHTTPServer() as server:
        client = ChatClient("m", base_url=server.base_url, api_key="k", params={"temperature": 0})
        with client:
            client.complete(request)
            client.complete(request)  # the second send reads every piece back
    expected = _dumps(client.build_body(request)).encode("utf-8")
    assert server.raw_bodies == [expected, expected]


def test_a_value_of_the_callers_that_holds_itself_is_refused_as_json_dumps_refuses_it() -> None:
    looped: dict[str, Any] = {}
    looped["self"] = looped
    for params, extra in (({"x": looped}, {}), ({}, {"x": looped})):
        request = ChatRequest(messages=(Message.user("hi"),), extra=extra)
        with pytest.raises(ValueError, match="Circular reference detected"):
            json.dumps(request_body.build("m", request, params))
        with pytest.raises(ValueError, match="Circular reference detected"):
            request_body.encoded("m", request, params)
    with pytest.raises(ValueError, match="Circular reference detected"):
        compact_json.dumps([looped])
    assert compact_json.dumps({"after": "an error"}) == '{"after":"an error"}'
