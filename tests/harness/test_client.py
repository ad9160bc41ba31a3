"""Tests of harness.client: wire body, parsing, usage, errors, retries, a loopback server."""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest
from support.loopback import QuietHTTPServer

from harness.client import (
    DEFAULT_BASE_URL,
    DEFAULT_MODEL,
    ChatClient,
    RetryPolicy,
    parse_usage,
)
from harness.errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ContextLengthExceededError,
    InsufficientBalanceError,
    MissingAPIKeyError,
    RateLimitError,
    ResponseFormatError,
    ServerError,
    UnprocessableEntityError,
)
from harness.messages import Message, ToolCall
from harness.model import ChatModel, ChatRequest, Usage

KEY = "sk-test-0123456789abcdef"
BASE = "https://api.example.test"
URL = f"{BASE}/chat/completions"
DEEPSEEK_CONTEXT_400 = {
    "error": {
        "message": "This model's maximum context length is 131072 tokens. However, you "
        "requested 140000 tokens (139000 in the messages, 1000 in the completion). Please "
        "reduce the length of the messages or completion.",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_request_error",
    }
}
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather of a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}

Handler = Callable[[httpx.Request], httpx.Response]


def completion(
    message: dict[str, Any] | None = None,
    *,
    finish_reason: str = "stop",
    usage: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A chat-completions response body."""
    body: dict[str, Any] = {
        "id": "cmpl-1",
        "object": "chat.completion",
        "model": "served-model",
        "choices": [
            {
                "index": 0,
                "message": message or {"role": "assistant", "content": "hello"},
                "finish_reason": finish_reason,
            }
        ],
        **extra,
    }
    if usage is not None:
        body["usage"] = usage
    return body


def error_body(message: str, type_: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": None, "code": None}}


class Recorder:
    """A MockTransport handler that replays canned responses and records each request."""

    def __init__(self, *replies: httpx.Response | Exception) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(reply, Exception):
            raise reply
        return reply

    @property
    def calls(self) -> int:
        return len(self.requests)

    def body(self, index: int = -1) -> dict[str, Any]:
        return json.loads(self.requests[index].content)


def make_client(handler: Handler, **kwargs: Any) -> ChatClient:
    kwargs.setdefault("api_key", KEY)
    kwargs.setdefault("base_url", BASE)
    kwargs.setdefault("random", lambda: 0.0)
    kwargs.setdefault("sleep", lambda _delay: None)
    return ChatClient(http_client=httpx.Client(transport=httpx.MockTransport(handler)), **kwargs)


def ok(body: dict[str, Any] | None = None, **kwargs: Any) -> httpx.Response:
    return httpx.Response(200, json=body if body is not None else completion(), **kwargs)


def hello() -> ChatRequest:
    return ChatRequest(messages=(Message.user("hi"),))


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    monkeypatch.delenv("DEEPSEEK_BASE_URL", raising=False)


# --- request body and headers -------------------------------------------------------------


def test_body_is_exact_with_params_and_extra_merged_in_stable_order() -> None:
    recorder = Recorder(ok())
    params = {"temperature": 0.0, "seed": 7, "thinking": {"type": "disabled"}}
    client = make_client(recorder, model="deepseek-v4-flash", params=params)
    call = ToolCall(id="call_1", name="get_weather", arguments='{"city": "Paris"}')
    request = ChatRequest(
        messages=(
            Message.system("You are terse."),
            Message.user("Weather in Paris?"),
            Message.assistant("", [call], reasoning_content="Need the tool."),
            Message.tool("call_1", "sunny", tool_name="get_weather"),
        ),
        tools=(WEATHER_TOOL,),
        tool_choice="auto",
        max_tokens=256,
        extra={"seed": 8, "stream": False},
    )
    client.complete(request)
    body = recorder.body()
    assert body == {
        "model": "deepseek-v4-flash",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
                "reasoning_content": "Need the tool.",
            },
            {"role": "tool", "content": "sunny", "tool_call_id": "call_1"},
        ],
        "tools": [WEATHER_TOOL],
        "tool_choice": "auto",
        "max_tokens": 256,
        "temperature": 0.0,
        "seed": 8,
        "thinking": {"type": "disabled"},
        "stream": False,
    }
    assert list(body) == [
        "model",
        "messages",
        "tools",
        "tool_choice",
        "max_tokens",
        "temperature",
        "seed",
        "thinking",
        "stream",
    ]


def test_optional_fields_are_omitted_when_unset() -> None:
    recorder = Recorder(ok())
    make_client(recorder).complete(hello())
    assert recorder.body() == {
        "model": DEFAULT_MODEL,
        "messages": [{"role": "user", "content": "hi"}],
    }


def test_post_goes_to_chat_completions_with_bearer_key() -> None:
    recorder = Recorder(ok())
    make_client(recorder, base_url=BASE + "/").complete(hello())
    request = recorder.requests[0]
    assert request.method == "POST"
    assert str(request.url) == URL
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.headers["Content-Type"] == "application/json"


def test_key_and_base_url_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-from-env")
    monkeypatch.setenv("DEEPSEEK_BASE_URL", "http://127.0.0.1:8011/v1/")
    recorder = Recorder(ok())
    client = ChatClient(http_client=httpx.Client(transport=httpx.MockTransport(recorder)))
    client.complete(hello())
    assert str(recorder.requests[0].url) == "http://127.0.0.1:8011/v1/chat/completions"
    assert recorder.requests[0].headers["Authorization"] == "Bearer sk-from-env"


def test_base_url_argument_beats_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPSEEK_BASE_URL", "http://127.0.0.1:8011")
    recorder = Recorder(ok())
    make_client(recorder, base_url="http://localhost:9/").complete(hello())
    assert str(recorder.requests[0].url) == "http://localhost:9/chat/completions"


def test_default_base_url_is_deepseek() -> None:
    client = ChatClient(api_key=KEY)
    try:
        assert client.base_url == DEFAULT_BASE_URL == "https://api.deepseek.com"
        assert client.model_name == DEFAULT_MODEL == "deepseek-flash"
    finally:
        client.close()


def test_custom_api_key_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTHER_KEY", "sk-other")
    recorder = Recorder(ok())
    client = ChatClient(
        api_key_env="OTHER_KEY",
        base_url=BASE,
        http_client=httpx.Client(transport=httpx.MockTransport(recorder)),
    )
    client.complete(hello())
    assert recorder.requests[0].headers["Authorization"] == "Bearer sk-other"


@pytest.mark.parametrize("value", [None, "", "   "])
def test_missing_key_raises(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is not None:
        monkeypatch.setenv("DEEPSEEK_API_KEY", value)
    with pytest.raises(MissingAPIKeyError) as info:
        ChatClient()
    assert info.value.env_var == "DEEPSEEK_API_KEY"
    assert "DEEPSEEK_API_KEY" in str(info.value)


def test_key_is_not_in_repr() -> None:
    client = make_client(Recorder(ok()), model="m")
    assert KEY not in repr(client)
    assert "m" in repr(client) and BASE in repr(client)


def test_client_satisfies_chat_model_protocol() -> None:
    assert isinstance(make_client(Recorder(ok())), ChatModel)


# --- parsing ---------------------------------------------------------------------------------


def test_parses_tool_calls_reasoning_and_finish_reason() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "reasoning_content": "The user wants weather.",
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            },
            {
                "id": "call_b",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'},
            },
        ],
    }
    body = completion(message, finish_reason="tool_calls")
    response = make_client(Recorder(ok(body))).complete(hello())
    assert response.finish_reason == "tool_calls"
    assert response.model == "served-model"
    assert response.message.role == "assistant"
    assert response.message.content == ""
    assert response.message.reasoning_content == "The user wants weather."
    assert response.message.tool_calls == (
        ToolCall("call_a", "get_weather", '{"city":"Paris"}'),
        ToolCall("call_b", "get_weather", '{"city":"Rome"}'),
    )
    assert response.usage is None


def test_missing_role_means_assistant() -> None:
    body = completion({"content": "plain"})
    response = make_client(Recorder(ok(body))).complete(hello())
    assert response.message == Message.assistant("plain")


USAGE_CASES = [
    pytest.param(
        {
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 5,
                "prompt_tokens_details": {"cached_tokens": 64},
            }
        },
        Usage(100, 5, 64),
        id="openai-cached-tokens",
    ),
    pytest.param(
        {
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 5,
                "prompt_cache_hit_tokens": 40,
                "prompt_cache_miss_tokens": 60,
            }
        },
        Usage(100, 5, 40),
        id="deepseek-cache-hit",
    ),
    pytest.param(
        {
            "usage": {"prompt_tokens": 100, "completion_tokens": 5},
            "timings": {"cache_n": 90, "prompt_n": 10},
        },
        Usage(100, 5, 90),
        id="llamacpp-timings",
    ),
    pytest.param(
        {"usage": {"prompt_tokens": 100, "completion_tokens": 5}},
        Usage(100, 5, None),
        id="unknown-is-none",
    ),
    pytest.param(
        {
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 5,
                "prompt_tokens_details": {"cached_tokens": None},
                "prompt_cache_hit_tokens": 0,
            }
        },
        Usage(100, 5, 0),
        id="null-details-fall-through-and-zero-stays-zero",
    ),
    pytest.param({}, None, id="no-usage"),
]


@pytest.mark.parametrize(("extra", "expected"), USAGE_CASES)
def test_usage_is_normalised(extra: dict[str, Any], expected: Usage | None) -> None:
    assert parse_usage(extra) == expected
    response = make_client(Recorder(ok(completion(**extra)))).complete(hello())
    assert response.usage == expected


def test_openai_cached_tokens_win_over_deepseek_field() -> None:
    usage = {
        "prompt_tokens": 10,
        "completion_tokens": 1,
        "prompt_tokens_details": {"cached_tokens": 8},
        "prompt_cache_hit_tokens": 3,
    }
    assert parse_usage({"usage": usage}) == Usage(10, 1, 8)


def test_leading_blank_lines_before_the_body_are_skipped() -> None:
    content = b"\n\n   \n" + json.dumps(completion()).encode() + b"\n"
    reply = httpx.Response(200, content=content, headers={"content-type": "application/json"})
    response = make_client(Recorder(reply)).complete(hello())
    assert response.message.content == "hello"


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (b"{}", "choices"),
        (b'{"choices": []}', "choices"),
        (b'{"choices": [{"finish_reason": "stop"}]}', "message"),
        (b"<html>gateway</html>", "JSON"),
        (b"\n\n", "JSON"),
    ],
)
def test_success_status_with_unreadable_body_raises_format_error(content: bytes, what: str) -> None:
    client = make_client(Recorder(httpx.Response(200, content=content)))
    with pytest.raises(ResponseFormatError, match=what):
        client.complete(hello())


# --- error statuses ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (402, InsufficientBalanceError),
        (404, APIStatusError),
        (408, APIStatusError),
        (422, UnprocessableEntityError),
        (429, RateLimitError),
        (500, ServerError),
        (503, ServerError),
    ],
)
def test_status_maps_to_error_class(status: int, cls: type[APIStatusError]) -> None:
    body = error_body("Something went wrong.", "some_error")
    reply = httpx.Response(status, json=body, headers={"x-request-id": "req-42"})
    client = make_client(Recorder(reply), retry=RetryPolicy(max_retries=0))
    with pytest.raises(APIStatusError) as info:
        client.complete(hello())
    error = info.value
    assert type(error) is cls
    assert error.status_code == status
    assert error.request_id == "req-42"
    assert error.body == body
    assert str(error) == (
        f"api.example.test returned {status}: Something went wrong (some_error; request id req-42)."
    )


def test_deepseek_request_id_header_and_readable_401() -> None:
    body = error_body(
        "Authentication Fails, Your api key: ****cdef is invalid", "authentication_error"
    )
    reply = httpx.Response(401, json=body, headers={"x-deepseek-request-id": "ds-1"})
    with pytest.raises(AuthenticationError) as info:
        make_client(Recorder(reply)).complete(hello())
    assert info.value.request_id == "ds-1"
    assert str(info.value).startswith("api.example.test returned 401: Authentication Fails")


def test_non_json_error_body_gives_empty_body_and_text_message() -> None:
    reply = httpx.Response(502, content=b"Bad Gateway from nginx")
    client = make_client(Recorder(reply), retry=RetryPolicy(max_retries=0))
    with pytest.raises(ServerError, match="Bad Gateway from nginx") as info:
        client.complete(hello())
    assert info.value.body == {}
    assert info.value.request_id is None


def test_deepseek_context_length_400_is_recognised() -> None:
    recorder = Recorder(httpx.Response(400, json=DEEPSEEK_CONTEXT_400))
    with pytest.raises(ContextLengthExceededError, match="maximum context length") as info:
        make_client(recorder).complete(hello())
    assert isinstance(info.value, BadRequestError)
    assert info.value.body == DEEPSEEK_CONTEXT_400
    assert recorder.calls == 1


@pytest.mark.parametrize(
    "message",
    [
        "Prompt has too many tokens",
        "Input exceeds the model's maximum context",
        "CONTEXT LENGTH exceeded",
        "context_length_exceeded",
    ],
)
def test_context_length_phrases_match_case_insensitively(message: str) -> None:
    reply = httpx.Response(400, json=error_body(message))
    with pytest.raises(ContextLengthExceededError):
        make_client(Recorder(reply)).complete(hello())


def test_context_length_code_is_recognised() -> None:
    body = {"error": {"message": "nope", "type": "x", "code": "context_length_exceeded"}}
    with pytest.raises(ContextLengthExceededError):
        make_client(Recorder(httpx.Response(400, json=body))).complete(hello())


def test_other_400_is_plain_bad_request() -> None:
    body = error_body("Invalid max_tokens value, the valid range of max_tokens is [1, 8192]")
    with pytest.raises(BadRequestError) as info:
        make_client(Recorder(httpx.Response(400, json=body))).complete(hello())
    assert type(info.value) is BadRequestError


def test_context_length_message_on_other_status_is_not_context_error() -> None:
    reply = httpx.Response(422, json=DEEPSEEK_CONTEXT_400)
    with pytest.raises(UnprocessableEntityError) as info:
        make_client(Recorder(reply)).complete(hello())
    assert not isinstance(info.value, ContextLengthExceededError)


def test_key_echoed_by_the_server_is_redacted() -> None:
    body = error_body(f"Incorrect API key provided: {KEY}", "authentication_error")
    with pytest.raises(AuthenticationError) as info:
        make_client(Recorder(httpx.Response(401, json=body))).complete(hello())
    assert KEY not in str(info.value)
    assert KEY not in json.dumps(info.value.body)


# --- retries -----------------------------------------------------------------------------------


def test_retries_503_then_succeeds() -> None:
    recorder = Recorder(httpx.Response(503), httpx.Response(503), ok())
    sleeps: list[float] = []
    client = make_client(recorder, sleep=sleeps.append, random=lambda: 0.0)
    assert client.complete(hello()).message.content == "hello"
    assert recorder.calls == 3
    assert sleeps == [0.5, 1.0]


def test_jitter_shortens_the_backoff() -> None:
    recorder = Recorder(httpx.Response(500), ok())
    sleeps: list[float] = []
    make_client(recorder, sleep=sleeps.append, random=lambda: 0.5).complete(hello())
    assert sleeps == [0.5 * (1 - 0.125)]


def test_backoff_is_capped_at_max_delay() -> None:
    recorder = Recorder(httpx.Response(500))
    sleeps: list[float] = []
    policy = RetryPolicy(max_retries=4, initial_delay=1.0, max_delay=2.5)
    client = make_client(recorder, retry=policy, sleep=sleeps.append)
    with pytest.raises(ServerError):
        client.complete(hello())
    assert sleeps == [1.0, 2.0, 2.5, 2.5]


def test_retry_after_seconds_is_honoured() -> None:
    recorder = Recorder(httpx.Response(429, headers={"Retry-After": "3"}), ok())
    sleeps: list[float] = []
    make_client(recorder, sleep=sleeps.append).complete(hello())
    assert recorder.calls == 2
    assert sleeps == [3.0]


def test_retry_after_ms_is_honoured() -> None:
    recorder = Recorder(httpx.Response(429, headers={"retry-after-ms": "1500"}), ok())
    sleeps: list[float] = []
    make_client(recorder, sleep=sleeps.append).complete(hello())
    assert sleeps == [1.5]


def test_retry_after_http_date_is_honoured() -> None:
    when = format_datetime(datetime.fromtimestamp(time.time() + 20, tz=UTC), usegmt=True)
    recorder = Recorder(httpx.Response(503, headers={"Retry-After": when}), ok())
    sleeps: list[float] = []
    make_client(recorder, sleep=sleeps.append).complete(hello())
    assert len(sleeps) == 1 and 17 <= sleeps[0] <= 20


@pytest.mark.parametrize("value", ["120", "-1", "soon"])
def test_unusable_retry_after_falls_back_to_backoff(value: str) -> None:
    recorder = Recorder(httpx.Response(429, headers={"Retry-After": value}), ok())
    sleeps: list[float] = []
    make_client(recorder, sleep=sleeps.append).complete(hello())
    assert sleeps == [0.5]


@pytest.mark.parametrize("status", [400, 401, 402, 404, 422])
def test_client_errors_are_not_retried(status: int) -> None:
    recorder = Recorder(httpx.Response(status, json=error_body("no")), ok())
    sleeps: list[float] = []
    with pytest.raises(APIStatusError):
        make_client(recorder, sleep=sleeps.append).complete(hello())
    assert recorder.calls == 1
    assert sleeps == []


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504])
def test_transient_statuses_are_retried(status: int) -> None:
    recorder = Recorder(httpx.Response(status), ok())
    make_client(recorder).complete(hello())
    assert recorder.calls == 2


def test_exhausted_retries_raise_server_error() -> None:
    recorder = Recorder(httpx.Response(503, json=error_body("Server Overloaded", "server_error")))
    sleeps: list[float] = []
    client = make_client(recorder, retry=RetryPolicy(max_retries=3), sleep=sleeps.append)
    with pytest.raises(ServerError, match="Server Overloaded"):
        client.complete(hello())
    assert recorder.calls == 4
    assert sleeps == [0.5, 1.0, 2.0]


def test_connection_errors_are_retried() -> None:
    recorder = Recorder(httpx.ConnectError("Connection refused"), ok())
    sleeps: list[float] = []
    make_client(recorder, sleep=sleeps.append).complete(hello())
    assert recorder.calls == 2
    assert sleeps == [0.5]


def test_timeouts_become_api_timeout_error_after_retries() -> None:
    recorder = Recorder(httpx.ReadTimeout("timed out"))
    with pytest.raises(APITimeoutError) as info:
        make_client(recorder).complete(hello())
    assert recorder.calls == 3
    assert URL in str(info.value)
    assert isinstance(info.value.__cause__, httpx.ReadTimeout)


def test_connect_error_becomes_api_connection_error() -> None:
    recorder = Recorder(httpx.ConnectError("[Errno 111] Connection refused"))
    client = make_client(recorder, retry=RetryPolicy(max_retries=0))
    with pytest.raises(APIConnectionError) as info:
        client.complete(hello())
    assert type(info.value) is APIConnectionError
    assert str(info.value) == f"could not reach {URL}: connection refused"


def test_retries_are_logged_without_key_or_body(caplog: pytest.LogCaptureFixture) -> None:
    secret_body = error_body("overloaded, secret-body-text", "server_error")
    recorder = Recorder(httpx.Response(503, json=secret_body), ok())
    with caplog.at_level(logging.WARNING, logger="harness.client"):
        make_client(recorder).complete(hello())
    records = [r for r in caplog.records if r.name == "harness.client"]
    assert len(records) == 1
    assert records[0].levelno == logging.WARNING
    text = records[0].getMessage()
    assert "503" in text and "0.50s" in text
    assert KEY not in text and "secret-body-text" not in text


# --- lifecycle ---------------------------------------------------------------------------------


def test_given_http_client_is_not_closed() -> None:
    http = httpx.Client(transport=httpx.MockTransport(Recorder(ok())))
    with ChatClient(api_key=KEY, http_client=http) as client:
        client.complete(hello())
    assert not http.is_closed
    http.close()


def test_own_http_client_is_closed() -> None:
    client = ChatClient(api_key=KEY)
    client.close()
    with pytest.raises(RuntimeError, match="closed"):
        client.complete(hello())


# --- a real HTTP server on loopback -------------------------------------------------------------


class LoopbackServer:
    """A ThreadingHTTPServer that records requests and answers with a queue of replies."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: list[tuple[int, dict[str, str], bytes]] = []
        self.httpd = QuietHTTPServer(("127.0.0.1", 0), self._handler_class())
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                server.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": json.loads(raw)}
                )
                status, headers, body = server.next_reply()
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    def next_reply(self) -> tuple[int, dict[str, str], bytes]:
        if self.replies:
            return self.replies.pop(0)
        usage = {"prompt_tokens": 12, "completion_tokens": 3, "prompt_cache_hit_tokens": 8}
        return 200, {}, b"\n\n" + json.dumps(completion(usage=usage)).encode()


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    loopback = LoopbackServer()
    loopback.thread.start()
    try:
        yield loopback
    finally:
        loopback.httpd.shutdown()
        loopback.httpd.server_close()
        loopback.thread.join(timeout=5)


def test_round_trip_against_real_server(server: LoopbackServer) -> None:
    client = ChatClient(
        "local-model",
        base_url=f"http://127.0.0.1:{server.port}",
        api_key="sk-test",
        params={"temperature": 0},
    )
    with client:
        response = client.complete(ChatRequest(messages=(Message.user("hi"),), max_tokens=16))
    assert response.message == Message.assistant("hello")
    assert response.usage == Usage(12, 3, 8)
    assert response.model == "served-model"
    [received] = server.requests
    assert received["path"] == "/chat/completions"
    assert received["headers"]["Authorization"] == "Bearer sk-test"
    assert received["body"] == {
        "model": "local-model",
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 16,
        "temperature": 0,
    }


def test_error_status_from_real_server(server: LoopbackServer) -> None:
    body = json.dumps(error_body("Rate Limit Reached", "rate_limit_error")).encode()
    server.replies = [(429, {"Retry-After": "2", "x-request-id": "r-9"}, body)] * 2
    sleeps: list[float] = []
    client = ChatClient(
        base_url=f"http://127.0.0.1:{server.port}/",
        api_key="sk-test",
        retry=RetryPolicy(max_retries=1),
        sleep=sleeps.append,
    )
    with client, pytest.raises(RateLimitError) as info:
        client.complete(hello())
    assert len(server.requests) == 2
    assert sleeps == [2.0]
    assert info.value.request_id == "r-9"
    assert str(info.value).startswith(f"127.0.0.1:{server.port} returned 429: Rate Limit Reached")


def test_closed_port_raises_connection_error_naming_the_url() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/chat/completions"
    client = ChatClient(
        base_url=f"http://127.0.0.1:{port}",
        api_key="sk-test",
        retry=RetryPolicy(max_retries=0),
        timeout=5.0,
    )
    with client, pytest.raises(APIConnectionError) as info:
        client.complete(hello())
    assert not isinstance(info.value, APITimeoutError)
    assert f"could not reach {url}" in str(info.value)
    assert "sk-test" not in str(info.value)
    assert isinstance(info.value.__cause__, httpx.ConnectError)


def test_a_loopback_servers_handler_error_never_reaches_stderr(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A test reading its own stderr must not read a server thread's traceback (a
    client that hung up mid-answer put a BrokenPipeError on a seal test's stderr)."""
    from support.loopback import ScriptedHTTPServer

    def hung_up(body: dict[str, Any]) -> Any:
        raise BrokenPipeError(32, "Broken pipe")

    with ScriptedHTTPServer(answer=hung_up) as server:
        with pytest.raises(httpx.HTTPError):
            httpx.post(server.base_url + "/chat/completions", json={"messages": []}, timeout=10)
        errors = server.httpd.errors
    assert [type(e) for e in errors] == [BrokenPipeError]
    assert capfd.readouterr().err == ""
