"""No secret stays in an exception, the audit or an offloaded tool result.

Each probe plants a key where a user or a provider would put it, through the real path: an error
body from a real HTTP server on 127.0.0.1, ``ctxlab compact --instructions`` (the CLI, against a
real summary server), and an agent whose tool returns a huge result holding a key.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.loopback import ScriptedHTTPServer, json_reply, text_reply
from support.sessions import run_turns
from support.summary_server import KEY_ENV, SummaryServer, compact_args

from harness.agent import Agent
from harness.client import ChatClient, RetryPolicy
from harness.errors import AuthenticationError, BadRequestError, ResponseFormatError
from harness.messages import Message, ToolCall
from harness.model import ChatRequest
from harness.secrets import scan_text
from harness.testing import FunctionModel, ScriptedModel
from harness.tools import Tool
from lab.cli import main

KEY_IN_USE = "sk-inuse0000000000000000000000"
OTHER_KEY = "sk-proxyAAAABBBBCCCCDDDDEEEEFFFF"
BEARER = "Bearer abcdefghijklmnopqrstuvwxyz0123"
SUMMARY = "## SESSION INTENT\nx\n## SUMMARY\ny\n## ARTIFACTS\nNone\n## NEXT STEPS\nNone"


def _client(url: str) -> ChatClient:
    return ChatClient("m", base_url=url, api_key=KEY_IN_USE, retry=RetryPolicy(max_retries=0))


def _hello() -> ChatRequest:
    return ChatRequest(messages=(Message.user("hi"),))


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (
            json_reply(
                {"error": {"message": f"bad key {KEY_IN_USE}; upstream {OTHER_KEY} {BEARER}"}},
                401,
            ),
            AuthenticationError,
        ),
        (text_reply(f"proxy says: api_key={OTHER_KEY[3:]} refused", 400), BadRequestError),
        (text_reply(f"<html>{OTHER_KEY}</html>", 200), ResponseFormatError),
    ],
)
def test_other_keys_in_an_error_body_never_reach_the_exception(
    reply: tuple[int, bytes, str], error: type[Exception]
) -> None:
    with ScriptedHTTPServer([reply]) as server, pytest.raises(error) as info:
        _client(server.base_url).complete(_hello())
    shown = f"{info.value} {json.dumps(getattr(info.value, 'body', {}))}"
    for secret in (KEY_IN_USE, OTHER_KEY, OTHER_KEY[3:], BEARER.split()[1]):
        assert secret not in shown
    assert "REDACTED" in shown.upper()


@pytest.fixture
def server() -> Iterator[SummaryServer]:
    with SummaryServer(SUMMARY) as summariser:
        yield summariser


def test_a_key_in_instructions_is_not_kept_in_audit_jsonl(
    tmp_path: Path, server: SummaryServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_turns(tmp_path, FunctionModel(lambda r: "ok"), [f"q{n} " + "x" * 200 for n in range(4)])
    monkeypatch.setenv(KEY_ENV, "sk-test-000000000000000000")
    instructions = f"keep the customer code; my key is {OTHER_KEY}"
    assert main(compact_args(tmp_path, server.url, "--instructions", instructions)) == 0
    audit = (tmp_path / "u" / "audit.jsonl").read_text(encoding="utf-8")
    assert OTHER_KEY not in audit and scan_text(audit) == []
    lines = [json.loads(line) for line in audit.splitlines()]
    assert all("keep the customer code" in line["instructions"] for line in lines)


def test_an_offloaded_tool_result_keeps_no_key(tmp_path: Path) -> None:
    huge = f"token={OTHER_KEY}\n" + "row\n" * 30_000 + f"export KEY {OTHER_KEY}\n" + "z\n" * 10
    dump = Tool("dump", "dump everything", {"type": "object", "properties": {}}, lambda: huge)
    call = Message.assistant("", tool_calls=(ToolCall("c1", "dump", "{}"),))
    model = ScriptedModel([call, Message.assistant("done")])
    agent = Agent(model, tools=[dump], workspace=tmp_path)
    agent.call("dump it")
    saved = list((tmp_path / "large_tool_results").glob("*.txt"))
    assert len(saved) == 1
    text = saved[0].read_text(encoding="utf-8")
    assert OTHER_KEY not in text and "row\n" * 100 in text  # the rest is kept
    preview = next(m for m in agent.context if m.role == "tool").content
    assert OTHER_KEY not in preview and str(saved[0].relative_to(tmp_path)) in preview


URL_PASSWORD = "correct-horse-battery-staple-42"


def _closed_url() -> str:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://lab:{URL_PASSWORD}@127.0.0.1:{port}/v1"


def test_a_password_in_the_base_url_never_reaches_a_connection_error() -> None:
    from support.loopback import SilentServer

    from harness.errors import APIConnectionError, APITimeoutError

    with pytest.raises(APIConnectionError) as refused:
        _client(_closed_url()).complete(_hello())
    with SilentServer() as silent, pytest.raises(APITimeoutError) as timed_out:
        url = silent.base_url.replace("http://", f"http://lab:{URL_PASSWORD}@")
        ChatClient(
            "m", base_url=url, api_key=KEY_IN_USE, retry=RetryPolicy(0), timeout=0.2
        ).complete(_hello())
    for error in (refused.value, timed_out.value):
        assert URL_PASSWORD not in f"{error} {error!r}" and "lab@" not in str(error)
        assert "127.0.0.1:" in str(error)  # the server is still named


def test_a_password_in_the_base_url_is_not_kept_in_audit_jsonl(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run_turns(tmp_path, FunctionModel(lambda r: "ok"), [f"q{n} " + "x" * 200 for n in range(4)])
    monkeypatch.setenv(KEY_ENV, "sk-test-000000000000000000")
    monkeypatch.setenv("CTXLAB_TIMEOUT", "2")
    assert main(compact_args(tmp_path, _closed_url())) == 2
    assert URL_PASSWORD not in capsys.readouterr().err
    audit = (tmp_path / "u" / "audit.jsonl").read_text(encoding="utf-8")
    assert "could not reach" in audit and URL_PASSWORD not in audit


def test_verbose_log_lines_never_show_a_password_in_the_base_url(tmp_path: Path) -> None:
    """``ctxlab -v`` prints every library's log lines; httpx's name each request's URL."""
    import os
    import subprocess
    import sys

    from support.paths import ROOT

    run_turns(tmp_path, FunctionModel(lambda r: "ok"), [f"q{n} " + "x" * 200 for n in range(4)])
    reply = json_reply({"error": {"message": "no"}}, 401)
    with ScriptedHTTPServer([reply]) as server:
        url = server.base_url.replace("http://", f"http://lab:{URL_PASSWORD}@")
        done = subprocess.run(
            [sys.executable, "-m", "experiments", "-v", *compact_args(tmp_path, url)],
            capture_output=True, text=True, cwd=ROOT, timeout=120,
            env={**os.environ, KEY_ENV: "sk-test-000000000000000000"},
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "HTTP Request: POST http://127.0.0.1:" in done.stderr  # the line is still there
    assert URL_PASSWORD not in done.stdout + done.stderr and "lab@" not in done.stderr
