"""Tests of lab.recorder.cassette and .secrets: record against a scripted loopback
server, replay with the server gone, mismatches, secret filtering and the JSON cassette format."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from vcr.request import Request as VcrRequest
from vcr.serialize import deserialize as vcr_deserialize
from vcr.serialize import serialize as vcr_serialize

from harness.errors import ConfigError, MissingAPIKeyError
from harness.messages import Message
from harness.model import ChatRequest
from lab.errors import (
    CassetteError,
    CassetteExistsError,
    CassetteMismatchError,
    CassetteMissingError,
    SecretLeakError,
)
from lab.recorder import (
    Provenance,
    ProviderSpec,
    cassette_client,
    provider_spec,
    read_provenance,
    scan_file,
    scan_text,
)
from lab.recorder.cassette import (
    CassetteSerializer,
    decode_body,
    describe_difference,
    encode_body,
    json_body_matcher,
)
from lab.recorder.seal import check_cassette, interactions_digest

KEY_ENV = "CTXLAB_TEST_KEY"
KEY = "sk-testsecret1234567890abcd"
HINT = "ctxlab record E9 --provider openai-compatible"
PROMPTS = ("Remember the passphrase: Nightingale.", "记住暗号：夜莺。只回复“收到”。")


@dataclass
class ScriptedServer:
    """An OpenAI-compatible server on 127.0.0.1 answering with canned completions."""

    echo_key_in_body: bool = False
    fail_first: int = 0
    """How many requests get a 429 before answers start."""
    bodies: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0
    httpd: ThreadingHTTPServer | None = None

    def reply(self, body: dict[str, Any], auth: str) -> tuple[int, dict[str, Any]]:
        self.bodies.append(body)
        if len(self.bodies) <= self.fail_first:
            return 429, {"error": {"message": "slow down", "type": "rate_limit"}}
        content = body["messages"][-1]["content"]
        answer = "收到" if "暗号" in content else f"Received ({len(self.bodies)})"
        data: dict[str, Any] = {
            "id": f"cmpl-{len(self.bodies)}",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": answer},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
        }
        if self.echo_key_in_body:
            data["echo"] = auth
        return 200, data

    def start(self) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None


def _handler(script: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if not self.path.endswith("/chat/completions"):
                self.send_error(404)
                return
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            auth = self.headers.get("Authorization", "")
            status, data = script.reply(body, auth)
            out = json.dumps(data).encode()  # ASCII escapes and spaces, like many servers
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.send_header("x-echo-auth", auth)
            self.send_header("Set-Cookie", "session=account-42")
            self.send_header("retry-after-ms", "1")
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def serve() -> Iterator[Any]:
    """Start scripted servers; any still running are shut down at the end of the test."""
    scripts: list[ScriptedServer] = []

    def start(script: ScriptedServer) -> ScriptedServer:
        script.start()
        scripts.append(script)
        return script

    yield start
    for script in scripts:
        script.stop()


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


def spec_for(script: ScriptedServer) -> ProviderSpec:
    return provider_spec(
        "openai-compatible",
        model="m",
        base_url=f"http://127.0.0.1:{script.port}/v1",
        api_key_env=KEY_ENV,
    )


def ask(text: str, **extra: Any) -> ChatRequest:
    return ChatRequest(messages=(Message.user(text),), max_tokens=32, extra=extra)


def record(
    path: Path, provider: ProviderSpec, prompts: tuple[str, ...] = PROMPTS, **options: Any
) -> tuple[list[str], Provenance]:
    with cassette_client(path, mode="record", provider=provider, **options) as cassette:
        answers = [cassette.client.complete(ask(p)).message.content for p in prompts]
    return answers, cassette.provenance


@dataclass(frozen=True)
class Recorded:
    path: Path
    answers: list[str]
    provenance: Provenance
    port: int


@pytest.fixture
def recorded(tmp_path: Path, serve: Any) -> Recorded:
    """A cassette of the two PROMPTS, recorded from a server that is shut down afterwards."""
    script = serve(ScriptedServer())
    path = tmp_path / "cassettes" / "E9" / "demo.json"
    answers, provenance = record(path, spec_for(script))
    script.stop()
    return Recorded(path, answers, provenance, script.port)


def replay(path: Path, prompts: tuple[str, ...] = PROMPTS) -> list[str]:
    with cassette_client(path, mode="replay", rerecord_hint=HINT) as cassette:
        return [cassette.client.complete(ask(p)).message.content for p in prompts]


# --- recording -----------------------------------------------------------------------------


def test_record_writes_the_cassette_with_its_provenance(recorded: Recorded) -> None:
    path, answers, provenance = recorded.path, recorded.answers, recorded.provenance
    assert answers == ["Received (1)", "收到"]
    assert provenance == read_provenance(path)
    assert provenance.provider == "openai-compatible"
    assert provenance.model == "m"
    assert provenance.source == "openai-compatible/m"
    assert provenance.base_url == "http://localhost/v1"
    assert provenance.params == {"temperature": 0}
    assert provenance.requests == 2
    assert provenance.ctxlab_version not in ("", "unknown")
    assert provenance.recorded_at.endswith("Z") and provenance.recorded_at[4] == "-"
    assert provenance.server is None and provenance.server_flags == ()
    assert list(path.parent.iterdir()) == [path]  # no temp file left behind


def test_recorded_cassette_holds_no_secret_no_loopback_and_no_account_headers(
    recorded: Recorded,
) -> None:
    path = recorded.path
    text = path.read_text(encoding="utf-8")
    assert KEY not in text and "testsecret" not in text
    assert "127.0.0.1" not in text and f":{recorded.port}" not in text
    assert re.search(r"localhost:\d", text) is None
    for word in ("authorization", "x-echo-auth", "set-cookie", "account-42", "retry-after"):
        assert word not in text.lower()
    assert scan_file(path, known_secrets=[KEY]) == []
    interaction = json.loads(text)["interactions"][0]
    assert interaction["request"]["uri"] == "http://localhost/v1/chat/completions"
    assert {name.lower() for name in interaction["response"]["headers"]} == {"content-type"}
    assert {name.lower() for name in interaction["request"]["headers"]} == {"content-type"}


def test_recorded_cassette_is_readable_json_with_parsed_bodies(recorded: Recorded) -> None:
    path = recorded.path
    text = path.read_text(encoding="utf-8")
    assert "记住暗号" in text and "收到" in text
    assert "\\u" not in text
    data = json.loads(text)
    assert list(data) == ["provenance", "version", "interactions"]
    request_body = data["interactions"][1]["request"]["body"]
    assert request_body["json"]["messages"][0]["content"] == PROMPTS[1]
    assert data["interactions"][1]["response"]["body"]["json"]["choices"][0]["message"] == {
        "role": "assistant",
        "content": "收到",
    }


def test_record_reports_progress_per_request(tmp_path: Path, serve: Any) -> None:
    lines: list[str] = []
    record(tmp_path / "c.json", spec_for(serve(ScriptedServer())), progress=lines.append)
    assert [line.split(" in ")[0] for line in lines] == [
        "  request 1 → 200",
        "  request 2 → 200",
    ]
    assert all(line.endswith(" s") for line in lines)


def test_record_stores_server_info_in_the_provenance(tmp_path: Path, serve: Any) -> None:
    info = {
        "base_url": "http://127.0.0.1:9/v1",
        "server": "llama-cpp-python",
        "server_version": "0.3.36",
        "model_file": str(Path.home() / ".cache" / "ctxlab" / "models" / "q.gguf"),
        "model_sha256": "ab" * 32,
        "flags": ["--n_ctx", "8192", "--seed", "42"],
    }
    _, provenance = record(tmp_path / "c.json", spec_for(serve(ScriptedServer())), server_info=info)
    assert provenance.server == "llama-cpp-python" and provenance.server_version == "0.3.36"
    assert provenance.model_file == "q.gguf"  # the name only, not the user's path
    assert provenance.model_sha256 == "ab" * 32
    assert provenance.server_flags == ("--n_ctx", "8192", "--seed", "42")
    assert read_provenance(tmp_path / "c.json") == provenance


def test_record_refuses_to_overwrite_without_force(recorded: Recorded, serve: Any) -> None:
    path = recorded.path
    before = path.read_bytes()
    with pytest.raises(CassetteExistsError, match="--force") as info:
        record(path, spec_for(serve(ScriptedServer())))
    assert str(path) in str(info.value)
    assert path.read_bytes() == before


def test_record_with_force_overwrites(recorded: Recorded, serve: Any) -> None:
    path = recorded.path
    _, provenance = record(path, spec_for(serve(ScriptedServer())), PROMPTS[:1], force=True)
    assert provenance.requests == 1 and read_provenance(path).requests == 1
    assert replay(path, PROMPTS[:1]) == ["Received (1)"]


def test_an_error_inside_the_record_block_writes_nothing(recorded: Recorded, serve: Any) -> None:
    path = recorded.path
    before = path.read_bytes()
    with (
        pytest.raises(RuntimeError),
        cassette_client(
            path, mode="record", provider=spec_for(serve(ScriptedServer())), force=True
        ) as cassette,
    ):
        cassette.client.complete(ask("hello"))
        raise RuntimeError("experiment failed")
    assert path.read_bytes() == before
    assert list(path.parent.iterdir()) == [path]
    with pytest.raises(CassetteError, match="still being recorded"):
        _ = cassette.provenance


def test_a_key_echoed_in_a_response_body_is_caught(tmp_path: Path, serve: Any) -> None:
    path = tmp_path / "leak.json"
    with pytest.raises(SecretLeakError) as info:
        record(path, spec_for(serve(ScriptedServer(echo_key_in_body=True))))
    message = str(info.value)
    assert "line " in message and "nothing was written" in message
    assert KEY not in message and "testsecret" not in message
    assert list(tmp_path.iterdir()) == []


def test_record_needs_the_api_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV)
    spec = provider_spec("openai-compatible", model="m", base_url="http://127.0.0.1:9/v1")
    spec = dataclasses.replace(spec, api_key_env=KEY_ENV)
    with pytest.raises(MissingAPIKeyError, match=KEY_ENV):
        record(tmp_path / "c.json", spec)
    assert list(tmp_path.iterdir()) == []


def test_record_needs_a_provider_and_a_known_mode(tmp_path: Path) -> None:
    with (
        pytest.raises(ConfigError, match="provider"),
        cassette_client(tmp_path / "c.json", mode="record"),
    ):
        pass
    with (
        pytest.raises(ConfigError, match="mode"),
        cassette_client(tmp_path / "c.json", mode="live"),
    ):  # type: ignore[arg-type]
        pass


def test_retried_answers_are_left_out_of_the_recording(tmp_path: Path, serve: Any) -> None:
    script = serve(ScriptedServer(fail_first=1))
    path = tmp_path / "retry.json"
    answers, provenance = record(path, spec_for(script), PROMPTS[:1])
    assert len(script.bodies) == 2 and answers == ["Received (2)"]
    assert provenance.requests == 1
    assert replay(path, PROMPTS[:1]) == ["Received (2)"]


def test_deepseek_cassettes_store_and_replay_the_public_url(
    tmp_path: Path, serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)
    script = serve(ScriptedServer())
    spec = provider_spec("deepseek", base_url=f"http://127.0.0.1:{script.port}")
    path = tmp_path / "ds.json"
    answers, provenance = record(path, spec)
    assert provenance.base_url == "https://api.deepseek.com"
    assert script.bodies[0]["thinking"] == {"type": "disabled"}
    uri = json.loads(path.read_text(encoding="utf-8"))["interactions"][0]["request"]["uri"]
    assert uri == "https://api.deepseek.com/chat/completions"
    # Replay sends to api.deepseek.com: the network guard would fail the test if it connected.
    assert replay(path) == answers


def test_vcrpy_logs_no_requests_or_responses_at_info(
    tmp_path: Path, serve: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """``ctxlab -v`` logs at INFO; vcrpy's INFO lines would print whole recorded responses."""
    caplog.set_level(logging.INFO)
    path = tmp_path / "quiet.json"
    script = serve(ScriptedServer())
    answers, _ = record(path, spec_for(script))
    script.stop()
    assert replay(path) == answers
    assert [r.getMessage() for r in caplog.records if r.name.startswith("vcr")] == []


# --- replay --------------------------------------------------------------------------------


def test_replay_serves_the_recording_without_the_server(recorded: Recorded) -> None:
    path, answers, provenance = recorded.path, recorded.answers, recorded.provenance
    with pytest.raises(httpx.ConnectError):
        httpx.post(f"http://127.0.0.1:{recorded.port}/v1/chat/completions", json={})
    assert replay(path) == answers
    with cassette_client(path, mode="replay") as cassette:
        assert cassette.provenance == provenance
        assert cassette.client.model_name == "m"
        assert cassette.client.base_url == "http://localhost/v1"
        cassette.client.complete(ask(PROMPTS[0]))
        cassette.client.complete(ask(PROMPTS[1]))


def test_replay_of_a_changed_request_names_cassette_request_and_hint(recorded: Recorded) -> None:
    path = recorded.path
    with pytest.raises(CassetteMismatchError) as info:
        replay(path, (PROMPTS[0], "a different question"))
    message = str(info.value)
    assert str(path) in message and HINT in message
    assert message.startswith("Request 2 does not match cassette")
    assert 'messages[0].content is "a different question" here' in message


def test_replay_mismatch_names_a_changed_parameter(recorded: Recorded) -> None:
    path = recorded.path
    with (
        pytest.raises(CassetteMismatchError, match=r"temperature is 0\.7 here, 0 in the recording"),
        cassette_client(path, mode="replay") as cassette,
    ):
        cassette.client.complete(ask(PROMPTS[0], temperature=0.7))


def test_replay_with_requests_left_over_fails(recorded: Recorded) -> None:
    path = recorded.path
    with pytest.raises(CassetteMismatchError, match="1 recorded request was never made") as info:
        replay(path, PROMPTS[:1])
    assert str(path) in str(info.value) and HINT in str(info.value)


def test_replay_of_an_extra_request_fails(recorded: Recorded) -> None:
    path = recorded.path
    with pytest.raises(CassetteMismatchError, match=r"Request 3.*holds only 2 requests"):
        replay(path, (*PROMPTS, PROMPTS[0]))


def test_replay_plays_each_answer_once(recorded: Recorded) -> None:
    path = recorded.path
    with pytest.raises(CassetteMismatchError, match="Request 2"):
        replay(path, (PROMPTS[0], PROMPTS[0]))


def test_replay_of_a_missing_cassette_says_how_to_record_it(tmp_path: Path) -> None:
    path = tmp_path / "E9" / "none.json"
    with pytest.raises(CassetteMissingError) as info:
        replay(path)
    assert str(info.value) == f"No cassette at {path}; record it with `{HINT}`."


def test_a_cassette_without_provenance_is_refused(recorded: Recorded) -> None:
    path = recorded.path
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["provenance"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CassetteError, match="provenance"):
        replay(path)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(CassetteError, match="JSON"):
        read_provenance(path)


def test_a_cassette_with_broken_interactions_is_refused(recorded: Recorded) -> None:
    path = recorded.path
    data = json.loads(path.read_text(encoding="utf-8"))
    data["interactions"][0]["request"]["body"] = {"neither": "json nor base64"}
    # Sealed again, so it is the unreadable body that is refused, not the edit.
    data["provenance"]["interactions_sha256"] = interactions_digest(data["interactions"])
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(CassetteError, match="cannot be read"):
        replay(path)


def test_recording_seals_the_cassette(recorded: Recorded) -> None:
    data = json.loads(recorded.path.read_text(encoding="utf-8"))
    digest = data["provenance"]["interactions_sha256"]
    assert digest == interactions_digest(data["interactions"])
    assert recorded.provenance.interactions_sha256 == digest
    check_cassette(recorded.path)


def test_replay_matching_ignores_key_order_but_not_values() -> None:
    recorded = VcrRequest("POST", "http://x/v1", b'{"a":1,"b":[1,2]}', {})
    json_body_matcher(VcrRequest("POST", "http://x/v1", b'{"b": [1, 2], "a": 1}', {}), recorded)
    for other in (b'{"a":1.0,"b":[1,2]}', b'{"a":true,"b":[1,2]}', b'{"a":1,"b":[2,1]}', b"x"):
        with pytest.raises(AssertionError):
            json_body_matcher(VcrRequest("POST", "http://x/v1", other, {}), recorded)
    json_body_matcher(VcrRequest("POST", "u", b"raw", {}), VcrRequest("POST", "u", b"raw", {}))


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        (
            {"a": 1, "m": [{"c": "x"}, {"c": "y"}]},
            {"a": 1, "m": [{"c": "x"}, {"c": "z"}]},
            'm[1].c is "y" here, "z" in the recording',
        ),
        ({"a": 1}, {"a": 1, "b": 2}, "key b is only in the recording"),
        ({"a": 1, "b": 2}, {"a": 1}, "key b is only in this request"),
        ({"m": [1]}, {"m": [1, 2]}, "m has 1 items here, 2 in the recording"),
        ({"t": "x" * 50}, {"t": "y" * 50}, "t differs"),
        ([1], {"a": 1}, 'body is [1] here, {"a":1} in the recording'),
        ({"a": 1}, {"a": 1}, "no difference"),
    ],
)
def test_describe_difference(new: Any, old: Any, expected: str) -> None:
    assert describe_difference(new, old) == expected


# --- the JSON cassette format --------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        '{"model":"m","messages":[{"role":"user","content":"你好"}]}',
        json.dumps({"content": "你好", "n": 1.5, "ok": True, "none": None}),
        json.dumps({"content": "你好"}, separators=(",", ":")),
        json.dumps({"content": "你好"}, ensure_ascii=False),
        "[1, 2, 3]",
        '{"a":  1}',
        '{"a": 1.0e3}',
        '{"a": 1, "a": 2}',
        'data: {"x": 1}\n\ndata: [DONE]\n\n',
        "42",
        "plain text",
        "",
        b'{"a":"\xe4\xbd\xa0"}',
        b"\x89PNG\r\n\x00\xff binary",
        None,
    ],
)
def test_bodies_round_trip_exactly(body: str | bytes | None) -> None:
    stored = json.loads(json.dumps(encode_body(body), ensure_ascii=False))
    restored = decode_body(stored)
    as_bytes = body.encode() if isinstance(body, str) else body
    assert (restored.encode() if isinstance(restored, str) else restored) == as_bytes


def test_json_bodies_are_stored_parsed_and_binary_as_base64() -> None:
    assert encode_body(b'{"a":"\xe4\xbd\xa0"}') == {"json": {"a": "你"}}
    assert encode_body('{"a": "\\u4f60"}') == {"json": {"a": "你"}, "style": "spaced-ascii"}
    assert encode_body('{"a":  1}') == '{"a":  1}'
    assert encode_body(b"\xff") == {"base64": "/w=="}
    with pytest.raises(ValueError, match="unreadable"):
        decode_body({"other": 1})


def test_the_serializer_round_trips_vcr_interactions() -> None:
    request = VcrRequest(
        "POST",
        "http://localhost/v1/chat/completions",
        '{"messages":[{"content":"你好"}]}'.encode(),
        {"Content-Type": "application/json"},
    )
    responses = [
        {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": body}}
        for body in (b'{"x": "\\u4f60"}', b"\xff\xfe", b"not json")
    ]
    cassette = {"requests": [request] * 3, "responses": responses}
    text = vcr_serialize(cassette, CassetteSerializer)
    assert "你好" in text and '"x": "你"' in text.replace("\n", "").replace("  ", "")
    requests, loaded = vcr_deserialize(text, CassetteSerializer)
    assert [r.body for r in requests] == [request.body] * 3
    assert [r["body"]["string"] for r in loaded] == [b'{"x": "\\u4f60"}', b"\xff\xfe", b"not json"]


# --- the secret scanner --------------------------------------------------------------------


def test_planted_secrets_in_a_cassette_are_found(recorded: Recorded) -> None:
    path = recorded.path
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.insert(3, '    "note": "sk-abcdefghijklmnop1234",')
    lines.insert(5, '    "authorization": ["Bearer abcdefghijklmnopqrstuv"],')
    path.write_text("\n".join(lines), encoding="utf-8")
    findings = scan_file(path)
    assert "line 4: sk- API key" in findings
    assert "line 6: Bearer token" in findings and "line 6: authorization value" in findings
    assert not any("abcdefghijklmnop" in finding for finding in findings)


@pytest.mark.parametrize(
    "text",
    [
        '"authorization": ["Bearer REDACTED"]',
        '"authorization": "<FILTERED>"',
        '"Authorization": ["[redacted]"]',
        "Authorization: Bearer <your-deepseek-api-key-here>",
        'api_key = "<YOUR_API_KEY>"',
        '"api_key": "xxxxxxxxxxxxxxxxxxxx"',
        "the task-0123456789abcdefghij is not a key",
        '"api_key_env": "DEEPSEEK_API_KEY_FOR_THE_TESTS"',
    ],
)
def test_placeholders_are_not_secrets(text: str) -> None:
    assert scan_text(text) == []


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("key sk-0123456789abcdefXYZ", "sk- API key"),
        ("Authorization: bearer eyJhbGciOiJIUzI1NiJ9.abc", "Bearer token"),
        ('"authorization": "Basic dXNlcjpwYXNz"', "authorization value"),
        ("DEEPSEEK_API_KEY=abcd1234efgh5678ijkl", "API key assignment"),
        ("api-key: 'ABCDEFGHIJKLMNOPQRST'", "API key assignment"),
    ],
)
def test_secret_patterns(text: str, label: str) -> None:
    assert f"line 1: {label}" in scan_text(text)


def test_known_secrets_are_found_literally_but_short_ones_ignored() -> None:
    assert scan_text("a\nxx hunter2hunter2 yy", known_secrets=["hunter2hunter2"]) == [
        "line 2: the API key in use"
    ]
    assert scan_text("no-key appears here", known_secrets=["no-key"]) == []
