"""A key typed into a prompt never reaches memory files or reports: the flush,
``memory_save`` and consolidation output pass the cassettes' secret scanner before they are
written, over real HTTP on 127.0.0.1; session logs keep what the user typed (as the README says)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.loopback import ScriptedHTTPServer, completion, json_reply, say

from harness import secrets
from harness.client import ChatClient, RetryPolicy
from harness.harness_agent import HarnessAgent
from harness.memory import MemoryConfig
from lab.errors import ExperimentError
from lab.experiment import write_json
from lab.recorder import cassette as recording

TYPED_KEY = "sk-live0123456789abcdefABCDEF"
ENV_KEY = "q7R2-not-a-known-format-91Xz"  # matches no pattern: only the environment reveals it


def last_user_text(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def echoing_model(body: dict[str, Any]) -> tuple[int, bytes, str]:
    """The agent answers; the flush and the consolidation repeat the keys they were shown."""
    system = str(body["messages"][0]["content"]) if body["messages"] else ""
    if "extract long-term memories" in system:
        return say(f"- The user's DeepSeek key is {TYPED_KEY}\n- Office key: {ENV_KEY}")
    if "You maintain MEMORY.md" in system:
        return say(f"# Keys\n- DeepSeek key {TYPED_KEY}\n- Office key {ENV_KEY}\n- Likes tea")
    return say("Noted.")


def memory_files(base: Path) -> dict[str, str]:
    files = [base / "MEMORY.md", *sorted((base / "memory").rglob("*.md"))]
    return {p.relative_to(base).as_posix(): p.read_text(encoding="utf-8") for p in files}


@pytest.fixture
def agent_over_http(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("OFFICE_API_KEY", ENV_KEY)
    config = MemoryConfig(consolidation_min_gap_seconds=0, background_order="flush_first")
    with ScriptedHTTPServer(answer=echoing_model) as server:
        client = ChatClient(
            "m", base_url=server.base_url, api_key="sk-x", retry=RetryPolicy(max_retries=0)
        )
        agent = HarnessAgent(
            client,
            "system",
            workspace_root=tmp_path,
            user_id="u",
            session_id="s1",
            memory=config,
            disable_compaction=True,
        )
        yield agent, tmp_path / "u", server
        agent.close()


def test_a_typed_key_never_reaches_the_ledger_or_memory_md(agent_over_http: Any) -> None:
    agent, base, server = agent_over_http
    agent.call(f"My DeepSeek key is {TYPED_KEY} and the office key is {ENV_KEY}.")
    assert agent.await_quiescence(30)
    agent.call("I like tea.")
    assert agent.await_quiescence(30)
    assert agent.consolidate_now().status in ("written", "skipped")
    files = memory_files(base)
    assert "MEMORY.md" in files and any(name.startswith("memory/") for name in files)
    for name, text in files.items():
        assert TYPED_KEY not in text, name
        assert ENV_KEY not in text, name
        assert secrets.REDACTED in text, name
    assert "Likes tea" in files["MEMORY.md"]  # the rest of the output is kept
    # The flush and consolidation models were really shown the key (the scan is what stopped it).
    assert any(TYPED_KEY in json.dumps(body) for body in server.bodies[1:])


def test_session_logs_hold_what_the_user_typed(agent_over_http: Any) -> None:
    agent, base, _ = agent_over_http
    agent.call(f"My DeepSeek key is {TYPED_KEY}.")
    assert agent.await_quiescence(30)
    logs = [p.read_text(encoding="utf-8") for p in (base / "sessions").glob("*.jsonl")]
    assert any(TYPED_KEY in text for text in logs)  # documented in the README


def test_memory_save_redacts_a_key(agent_over_http: Any) -> None:
    agent, base, server = agent_over_http
    save = {
        "id": "c1",
        "type": "function",
        "function": {
            "name": "memory_save",
            "arguments": json.dumps({"content": f"- API key: {TYPED_KEY}\n- Likes tea"}),
        },
    }
    server.replies = [json_reply(completion({"role": "assistant", "tool_calls": [save]}))]
    agent.call(f"Remember my key {TYPED_KEY}")
    assert agent.await_quiescence(30)
    for name, text in memory_files(base).items():
        assert TYPED_KEY not in text, name
    assert "Likes tea" in (base / "MEMORY.md").read_text(encoding="utf-8")


def test_one_scanner_for_cassettes_reports_and_memory() -> None:
    assert recording.scan_text is secrets.scan_text  # what the cassette recorder calls
    text, findings = secrets.redact_text(f"key {TYPED_KEY}; Bearer abcdefghijklmnopqrstu; ok")
    assert text == "key [REDACTED]; Bearer [REDACTED]; ok"
    assert findings == ["line 1: sk- API key", "line 1: Bearer token"]
    assert secrets.scan_text(text) == []  # what redaction leaves is clean


@pytest.mark.parametrize(
    "secret",
    [
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "AKIAABCDEFGHIJKLMNOP",
        "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234",
        "xoxb-1234567890-abcdefghij",
        "-----BEGIN RSA PRIVATE KEY-----",
    ],
)
def test_common_key_formats_are_found_and_redacted(secret: str) -> None:
    assert secrets.scan_text(f"note: {secret} end")
    text, _ = secrets.redact_text(f"note: {secret} end")
    assert secret not in text and text.startswith("note: ") and text.endswith(" end")


def test_a_report_holding_a_key_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "E9.json"
    with pytest.raises(ExperimentError, match="would contain what looks like a secret") as info:
        write_json(path, {"answer": f"the key is {TYPED_KEY}"})
    assert TYPED_KEY not in str(info.value)
    assert not path.exists()
