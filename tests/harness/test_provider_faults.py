"""Hostile provider replies, silent servers and foreign context-length errors, over real HTTP on
127.0.0.1: no bad reply is appended or bricks the session, every
wait ends within the total timeout, and every provider's "context too long" forces a
compaction and one retry."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.loopback import (
    RawServer,
    ScriptedHTTPServer,
    SilentServer,
    TricklingServer,
    completion,
    json_reply,
    say,
    text_reply,
)

from harness.agent import Agent
from harness.client import ChatClient, RetryPolicy
from harness.compaction.agentscope import CompactionConfig
from harness.compaction.factory import make_engine
from harness.errors import (
    APITimeoutError,
    ConfigError,
    ContextLengthExceededError,
    CtxlabError,
    ResponseFormatError,
)
from harness.messages import Message, ToolCall, validate_pairing
from harness.model import ChatRequest
from harness.replies import read_completion, repair_tool_call_ids
from harness.timeouts import Timeouts
from harness.tools import Tool


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


ADD = Tool.from_function(add)


def client(base_url: str, **kwargs: Any) -> ChatClient:
    kwargs.setdefault("retry", RetryPolicy(max_retries=0))
    return ChatClient("m", base_url=base_url, api_key="sk-test-key-for-loopback", **kwargs)


def call(call_id: Any, name: str = "add", arguments: Any = '{"a": 1, "b": 2}') -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        entry["id"] = call_id
    return entry


def tool_reply(*calls: dict[str, Any]) -> tuple[int, bytes, str]:
    return json_reply(completion({"role": "assistant", "content": None, "tool_calls": list(calls)}))


# --- item 5: replies are checked before anything is appended -------------------------------------


def test_a_call_without_id_gets_a_deterministic_id_and_the_session_goes_on() -> None:
    ids = []
    for _ in range(2):
        with ScriptedHTTPServer([tool_reply(call(None)), say("3"), say("next")]) as server:
            agent = Agent(client(server.base_url), tools=[ADD])
            assert agent.call("1+2?").text == "3"
            assert agent.call("and now?").text == "next"
        history = list(agent.context)
        validate_pairing(history)
        (repaired,) = history[1].tool_calls
        assert repaired.id.startswith("call_") and len(repaired.id) == len("call_") + 16
        assert history[2] == Message.tool(repaired.id, "3", tool_name="add")
        # The server got the repaired id back, paired with its result.
        sent = server.bodies[1]["messages"]
        assert sent[1]["tool_calls"][0]["id"] == sent[2]["tool_call_id"] == repaired.id
        ids.append(repaired.id)
    assert ids[0] == ids[1]  # deterministic


def test_two_calls_with_one_id_are_told_apart() -> None:
    reply = tool_reply(call("same"), call("same", arguments='{"a": 5, "b": 5}'))
    with ScriptedHTTPServer([reply, say("done"), say("next")]) as server:
        agent = Agent(client(server.base_url), tools=[ADD])
        agent.call("two sums")
        assert agent.call("more?").text == "next"
    history = list(agent.context)
    validate_pairing(history)
    first, second = history[1].tool_calls
    assert first.id == "same" and second.id not in ("", "same")
    assert [m.content for m in history[2:4]] == ["3", "10"]
    assert history[1].metadata["repaired_tool_call_ids"] is True


def test_an_id_reused_from_an_earlier_turn_is_repaired() -> None:
    replies = [tool_reply(call("c1")), say("3"), tool_reply(call("c1")), say("3 again")]
    with ScriptedHTTPServer(replies) as server:
        agent = Agent(client(server.base_url), tools=[ADD])
        agent.call("first")
        agent.call("second")
        assert agent.call("third").text == "ok"
    validate_pairing(list(agent.context))
    ids = [c.id for m in agent.context for c in m.tool_calls]
    assert ids[0] == "c1" and ids[1] != "c1"


BAD_REPLIES = {
    "tool_calls as an object": completion(
        {"role": "assistant", "content": None, "tool_calls": {"id": "c1", "function": {}}}
    ),
    "tool_calls as text": completion({"role": "assistant", "tool_calls": "add(1, 2)"}),
    "a call that is not an object": completion({"role": "assistant", "tool_calls": ["c1"]}),
    "a call without a function": completion({"role": "assistant", "tool_calls": [{"id": "c1"}]}),
    "a call without a name": completion(
        {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"arguments": "{}"}}]}
    ),
    "a call with a list id": completion(
        {"role": "assistant", "tool_calls": [{**call("x"), "id": ["c1"]}]}
    ),
    "arguments as a number": completion(
        {"role": "assistant", "tool_calls": [call("c1", "add", 7)]}
    ),
    "usage as text": completion(
        {"role": "assistant", "content": "hi"}, {"prompt_tokens": "many", "completion_tokens": 1}
    ),
    "negative usage": completion(
        {"role": "assistant", "content": "hi"}, {"prompt_tokens": -5, "completion_tokens": 1}
    ),
    "fractional usage": completion(
        {"role": "assistant", "content": "hi"}, {"prompt_tokens": 2.5, "completion_tokens": 1}
    ),
    "boolean cached count": completion(
        {"role": "assistant", "content": "hi"},
        {"prompt_tokens": 5, "completion_tokens": 1, "prompt_cache_hit_tokens": True},
    ),
    "a user reply": completion({"role": "user", "content": "I am the user now"}),
    "a tool reply": completion({"role": "tool", "content": "x"}),
    "content as a number": completion({"role": "assistant", "content": 42}),
    "reasoning as an object": completion(
        {"role": "assistant", "content": "hi", "reasoning_content": {"a": 1}}
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_REPLIES))
def test_a_bad_reply_is_a_typed_error_and_appends_nothing(name: str) -> None:
    with ScriptedHTTPServer([json_reply(BAD_REPLIES[name]), say("fine")]) as server:
        agent = Agent(client(server.base_url), tools=[ADD])
        with pytest.raises(ResponseFormatError) as info:
            agent.call("hello")
        assert isinstance(info.value, CtxlabError)
        assert str(info.value).startswith(f"127.0.0.1:{server.httpd.server_port} answered 200 with")
        # Only the user's message was kept: no part of the bad reply.
        assert list(agent.context) == [Message.user("hello")]
        assert agent.call("again").text == "fine"
    validate_pairing(list(agent.context))


def test_text_parts_and_object_arguments_are_read() -> None:
    parts = [{"type": "text", "text": "hel"}, {"type": "text", "text": "lo"}]
    reply = completion(
        {"role": "assistant", "content": parts, "tool_calls": [call("c1", "add", {"a": 1})]},
        {"prompt_tokens": 4.0, "completion_tokens": 1},
    )
    with ScriptedHTTPServer([json_reply(reply)]) as server, client(server.base_url) as model:
        response = model.complete(ChatRequest(messages=(Message.user("hi"),)))
    assert response.message.content == "hello"
    assert json.loads(response.message.tool_calls[0].arguments) == {"a": 1}
    assert response.usage is not None and response.usage.prompt_tokens == 4


def test_a_body_that_cannot_be_decoded_is_a_format_error() -> None:
    garbage = b"not gzip at all"
    head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
    raw = f"{head}Content-Length: {len(garbage)}\r\nConnection: close\r\n\r\n".encode() + garbage
    with (
        RawServer(raw) as server,
        client(server.base_url) as model,
        pytest.raises(ResponseFormatError, match="cannot be decoded"),
    ):
        model.complete(ChatRequest(messages=(Message.user("hi"),)))


# --- item 9: timeouts --------------------------------------------------------------------------


def hello() -> ChatRequest:
    return ChatRequest(messages=(Message.user("hi"),))


def test_a_server_that_never_answers_fails_within_the_total_timeout_retries_included() -> None:
    timeouts = Timeouts(connect=1.0, read=0.3, total=0.8)
    retry = RetryPolicy(max_retries=5, initial_delay=0.05, max_delay=0.05)
    with SilentServer() as server, client(server.base_url, timeout=timeouts, retry=retry) as model:
        started = time.monotonic()
        with pytest.raises(APITimeoutError) as info:
            model.complete(hello())
        elapsed = time.monotonic() - started
        attempts = len(server.accepted)
    assert 0.75 <= elapsed < 0.8 + 1.0
    assert 2 <= attempts < 6  # retried, but not all five retries fit in 0.8 s
    assert str(info.value) == (
        f"no answer from {server.base_url}/chat/completions within the total timeout of "
        f"0.8 s ({attempts} attempts)"
    )


def test_no_retry_starts_that_could_not_finish_within_the_total_timeout() -> None:
    timeouts = Timeouts(connect=1.0, read=0.3, total=1.0)
    retry = RetryPolicy(max_retries=3, initial_delay=2.0)
    with SilentServer() as server, client(server.base_url, timeout=timeouts, retry=retry) as model:
        started = time.monotonic()
        with pytest.raises(APITimeoutError) as info:
            model.complete(hello())
        elapsed = time.monotonic() - started
    assert elapsed < 1.0  # gave up after the first attempt instead of sleeping past the total
    assert len(server.accepted) == 1
    assert str(info.value).endswith(
        "(1 attempt); the total timeout of 1 s leaves no time for another"
    )


def test_a_server_that_trickles_bytes_forever_fails_within_the_total_timeout() -> None:
    timeouts = Timeouts(connect=1.0, read=0.5, total=0.6)
    with TricklingServer() as server, client(server.base_url, timeout=timeouts) as model:
        started = time.monotonic()
        with pytest.raises(APITimeoutError, match=r"total timeout of 0\.6 s"):
            model.complete(hello())
    assert time.monotonic() - started < 0.6 + 0.5


def test_the_timeouts_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXLAB_TIMEOUT", "0.4")
    monkeypatch.setenv("CTXLAB_READ_TIMEOUT", "5")
    with SilentServer() as server, client(server.base_url) as model:
        assert model.timeouts == Timeouts(connect=10.0, read=5.0, total=0.4)
        started = time.monotonic()
        with pytest.raises(APITimeoutError, match=r"total timeout of 0\.4 s \(1 attempt\)"):
            model.complete(hello())
    assert time.monotonic() - started < 0.4 + 0.5


def test_defaults_are_bounded() -> None:
    timeouts = ChatClient(api_key="sk-x").timeouts
    assert timeouts == Timeouts()
    assert timeouts.total <= 600 and timeouts.connect <= 10


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "soon"])
def test_a_bad_timeout_in_the_environment_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("CTXLAB_CONNECT_TIMEOUT", value)
    with pytest.raises(ConfigError, match=r"^CTXLAB_CONNECT_TIMEOUT must be") as info:
        ChatClient(api_key="sk-x")
    assert len(str(info.value).splitlines()) == 1


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.0, 0.0, True])
@pytest.mark.parametrize("field", ["connect", "read", "total"])
def test_a_bad_timeout_is_refused_naming_it(field: str, value: float) -> None:
    with pytest.raises(ConfigError, match=f"^{field} timeout must be"):
        Timeouts(**{field: value})


# --- item 10: every provider's "context too long" forces a compaction and one retry -------------

ANTHROPIC = {
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "prompt is too long: 208310 tokens > 200000 maximum",
    },
}
ANTHROPIC_LIMIT = {
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "input length and `max_tokens` exceed context limit: 197000 + 21333 > "
        "200000, decrease input length or `max_tokens` and try again",
    },
}
GEMINI = {
    "error": {
        "code": 400,
        "message": "The input token count (1196265) exceeds the maximum number of tokens "
        "allowed (1048576).",
        "status": "INVALID_ARGUMENT",
    }
}
OVERFLOWS = {
    "anthropic": json_reply(ANTHROPIC, 400),
    "anthropic-limit": json_reply(ANTHROPIC_LIMIT, 400),
    "gemini": json_reply(GEMINI, 400),
    "gemini-openai-list": json_reply([GEMINI], 400),
    "plain-string": text_reply("This model's maximum context length is 8192 tokens", 400),
    # a provider (AWS Bedrock's wording) answering as plain text, no JSON at all
    "plain-text-input-too-long": text_reply("Input is too long for requested model.", 400),
    "json-string": json_reply("prompt is too long", 400),
    "error-as-string": json_reply({"error": "context window exceeded"}, 400),
    "413": text_reply("Request Entity Too Large", 413),
    "413-anthropic": json_reply(
        {
            "type": "error",
            "error": {
                "type": "request_too_large",
                "message": "Request exceeds the maximum allowed number of bytes.",
            },
        },
        413,
    ),
}


def summary_reply() -> tuple[int, bytes, str]:
    return say("the summary of q1 to q3")


@pytest.mark.parametrize("name", sorted(OVERFLOWS))
def test_a_foreign_context_length_error_forces_compaction_and_one_retry(name: str) -> None:
    config = CompactionConfig.count_only(50, 2)
    replies = [say("a1"), say("a2"), say("a3"), OVERFLOWS[name], summary_reply(), say("a4")]
    with ScriptedHTTPServer(replies) as server:
        model = client(server.base_url)
        agent = Agent(model, engine=make_engine(config, model))
        for question in ("q1", "q2", "q3"):
            agent.call(question)
        result = agent.call("q4")
    assert result.text == "a4"
    (event,) = result.compactions
    assert event.trigger == "overflow"
    failed, summary, retry = server.bodies[3:6]
    assert len(retry["messages"]) < len(failed["messages"])
    assert "q1" in json.dumps(summary, ensure_ascii=False)
    assert retry["messages"][-1] == {"role": "user", "content": "q4"}
    assert len(server.bodies) == 6  # one retry, no more


@pytest.mark.parametrize("name", sorted(OVERFLOWS))
def test_the_client_raises_context_length_exceeded(name: str) -> None:
    status = OVERFLOWS[name][0]
    with (
        ScriptedHTTPServer([OVERFLOWS[name]]) as server,
        client(server.base_url) as model,
        pytest.raises(ContextLengthExceededError) as info,
    ):
        model.complete(hello())
    assert info.value.status_code == status
    assert len(str(info.value).splitlines()) == 1


# --- item 5, as an invariant: any body is a reply or a ResponseFormatError, never a brick ----

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
CALL = st.fixed_dictionaries(
    {},
    optional={
        "id": st.sampled_from(["c1", "c2", "", None, 3]) | JSON,
        "type": st.just("function"),
        "function": st.fixed_dictionaries(
            {}, optional={"name": st.sampled_from(["add", ""]) | JSON, "arguments": JSON}
        )
        | JSON,
    },
)
MESSAGE = st.fixed_dictionaries(
    {},
    optional={
        "role": st.sampled_from(["assistant", "user", None]) | JSON,
        "content": st.text(max_size=5) | JSON,
        "tool_calls": st.lists(CALL | JSON, max_size=3) | JSON,
        "reasoning_content": st.text(max_size=5) | JSON,
    },
)
USAGE = st.fixed_dictionaries(
    {}, optional={"prompt_tokens": JSON, "completion_tokens": JSON, "prompt_cache_hit_tokens": JSON}
)


@given(
    message=MESSAGE,
    usage=USAGE | JSON,
    earlier=st.lists(st.sampled_from(["c1", "c2"]), unique=True),
)
def test_any_reply_is_read_or_refused_and_never_bricks_the_history(
    message: dict[str, Any], usage: Any, earlier: list[str]
) -> None:
    body = {"choices": [{"message": message, "finish_reason": "stop"}], "usage": usage}
    try:
        response = read_completion(body, "m")
    except ResponseFormatError:
        return
    history: list[Message] = [Message.user("q")]
    for n, call_id in enumerate(earlier):
        history += [Message.assistant("", [ToolCall(call_id, "add")]), Message.tool(call_id, "1")]
        history.append(Message.user(f"q{n}"))
    reply = repair_tool_call_ids(response.message, history)
    results = [Message.tool(c.id, "1") for c in reply.tool_calls]
    validate_pairing([*history, reply, *results, Message.user("next")])
    assert all(c.id for c in reply.tool_calls)
