"""DeepSeek-Harness's own session files: read, folded, written back.

The fixtures in tests/data/dsh/ were written by dsh's own code (scripts/dsh_fixtures/); beside
each ``session.jsonl`` is the ``surface.json`` dsh printed when it wrote it. No test needs dsh.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from support.paths import TESTS

from harness.agent import Agent
from harness.compaction.dsh import DshConfig
from harness.compaction.factory import make_engine
from harness.errors import EventLogError, LogCorruptError
from harness.messages import CHECKPOINT_NAME, Message, ToolCall
from harness.model import ChatRequest
from harness.store.dsh.surface import view
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.eventlog.events import thaw
from harness.testing import FunctionModel
from harness.tools import Tool

DATA = TESTS / "data" / "dsh"
FIXTURES = sorted(p.name for p in DATA.iterdir() if (p / "session.jsonl").is_file())


def recorded(name: str) -> dict[str, Any]:
    return json.loads((DATA / name / "surface.json").read_text(encoding="utf-8"))


def expected_message(node: dict[str, Any]) -> tuple[str, str, str | None, list[Any], str | None]:
    """(role, text, reasoning, calls, answered call) of a node as dsh printed it."""
    blocks = node["texts"]
    texts = "".join(b["text"] for b in blocks if b["type"] == "text")
    reasoning = [b["text"] for b in blocks if b["type"] == "reasoning"]
    calls = [(b["id"], b["name"], b["arguments"]) for b in blocks if b["type"] == "tool-call"]
    results = [b for b in blocks if b["type"] == "tool-result"]
    if results:  # dsh's tool results are user-role messages holding one tool-result block
        return "tool", "".join(results[0]["texts"]), None, [], results[0]["toolCallId"]
    role = node["role"] or "assistant"  # an empty assistant message derives none
    return role, texts, "".join(reasoning) if reasoning else None, calls, None


@pytest.mark.parametrize("name", FIXTURES)
def test_each_fixture_folds_to_the_surface_dsh_recorded(name: str) -> None:
    want = recorded(name)
    log = EventLog.replay(DATA / name / "session.jsonl")
    assert [e.type for e in log.events] == want["eventTypes"]  # nothing dropped, rows expanded
    assert list(log.node_seqs) == [n["seq"] for n in want["nodes"]]
    assert log.replace_generation == want["replaceGeneration"]
    session = view(log)
    for node, got in zip(want["nodes"], session.nodes, strict=True):
        role, text, reasoning, calls, answered = expected_message(node)
        message = got.message
        assert (got.type, message.role, message.content) == (node["type"], role, text)
        assert message.reasoning_content == reasoning
        assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == calls
        assert message.tool_call_id == answered
        assert got.price == node["price"]
    assert session.surface_tokens == want["surfaceTokens"]


def test_the_fixtures_hold_what_the_issue_asks_for() -> None:
    types = {name: recorded(name)["eventTypes"] for name in FIXTURES}
    assert {"compacted", "one-turn", "two-turns-resumed"} <= set(FIXTURES)
    one = EventLog.replay(DATA / "one-turn" / "session.jsonl")
    calls = [c.id for c in one.message(10).tool_calls]
    answers = [one.message(seq).tool_call_id for seq in (13, 14)]
    assert calls == ["call_read", "call_list"] and answers == ["call_list", "call_read"]
    assert one.message(10).reasoning_content  # reasoning
    assert one.message(17) == Message.assistant("")  # the empty assistant message
    assert view(one).nodes[4].price == 0  # ... priced 0, as dsh prices it
    compacted = EventLog.replay(DATA / "compacted" / "session.jsonl")
    checkpoint = compacted.message(compacted.node_seqs[0])
    assert checkpoint.name == CHECKPOINT_NAME and "<compacted-summary>" in checkpoint.content
    assert types["two-turns-resumed"].count("turn/start") == 2
    assert "session/end-seed" in types["two-turns-resumed"]


def test_a_dsh_compaction_reads_as_one_with_ctxlabs_fields() -> None:
    log = EventLog.replay(DATA / "compacted" / "session.jsonl")
    summary = log.latest("compaction/summary")
    assert summary is not None
    assert summary.data["shadowed_seqs"] == (1, 10, 13, 14, 17)
    assert summary.data["summary"].startswith("## Primary Request and Intent")
    assert log.latest("compaction/start").data["compaction_id"] == summary.data["compaction_id"]  # type: ignore[union-attr]
    assert log.open_compaction() is None


def _with_line(tmp_path: Path, name: str, seq: int, change: Any) -> Path:
    lines = (DATA / name / "session.jsonl").read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        record = json.loads(line)
        if record.get("seq") == seq:
            change(record)
            lines[index] = json.dumps(record)
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "block",
    [
        {"type": "image", "attachment": {"attachmentId": "sha256:abc"}},
        {"type": "audio", "data": "..."},
        {"type": "text"},
    ],
)
def test_an_assistant_message_we_cannot_read_is_an_error_not_empty(
    tmp_path: Path, block: dict[str, Any]
) -> None:
    def plant(record: dict[str, Any]) -> None:
        record["data"]["message"]["content"].append(block)

    path = _with_line(tmp_path, "one-turn", 10, plant)
    before = path.read_bytes()
    with pytest.raises(LogCorruptError, match=r"session.jsonl:\d+: event 10 \(assistant/message\)"):
        EventLog.replay(path)
    with pytest.raises(LogCorruptError, match="event 10"):
        EventLog.open(path)
    assert path.read_bytes() == before  # nothing appended or cut


def test_a_header_of_another_format_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    source = (DATA / "one-turn" / "session.jsonl").read_text(encoding="utf-8")
    path.write_text(source.replace('"version":0', '"version":7', 1), encoding="utf-8")
    with pytest.raises(LogCorruptError, match="format version 7"):
        EventLog.replay(path)


def test_a_torn_last_dsh_line_is_recovered_like_ours(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copy(DATA / "one-turn" / "session.jsonl", path)
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"type":"turn/start","seq":29,"ti')
    log = EventLog.open(path)
    assert len(log.events) == 30 and log.events[-1].type == "session/end-seed"
    assert log.recovered and "torn" in log.recovered[0]
    again = EventLog.replay(path).events
    assert [(e.type, thaw(e.data)) for e in again] == [(e.type, thaw(e.data)) for e in log.events]


def test_a_dsh_file_is_not_opened_as_another_format(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    shutil.copy(DATA / "one-turn" / "session.jsonl", path)
    with pytest.raises(EventLogError, match="is a dsh session log, not ctxlab"):
        EventLog.open(path, format="ctxlab")


# --- writing dsh's format -----------------------------------------------------------------------


def look(path: str) -> str:
    """Look at a path."""
    return f"contents of {path}"


LOOK = Tool.from_function(look)


def _script(request: ChatRequest) -> Message | str:
    if request.purpose == "summary":
        return "## Primary Request and Intent\n- look at a and b"
    if request.messages[-1].role == "user":
        n = len(request.messages)
        calls = [
            ToolCall(f"a{n}", "look", '{"path":"a"}'),
            ToolCall(f"b{n}", "look", '{"path":"b"}'),
        ]
        return Message.assistant("Looking.", calls, reasoning_content="two files to read")
    return "Both files read."


def _ms_clock() -> Any:
    ticks = iter(range(1_000_000))
    return lambda: f"2026-12-01T10:00:{next(ticks) % 60:02d}.{next(ticks) % 1000:03d}Z"


def _write_session(path: Path) -> EventLog:
    log = EventLog(path, clock=_ms_clock(), format="dsh")
    history = EventLogHistory(log)
    model = FunctionModel(_script)
    engine = make_engine(DshConfig(context_window=10_000, retain_tokens=10), model, history=history)
    agent = Agent(model, "You are terse.", (LOOK,), engine=engine, history=history)
    agent.call("read a and b " + "x" * 200)
    agent.call("again " + "y" * 200)
    from harness.compaction.dsh import DshEngine

    DshEngine(log, model, DshConfig()).compact_now(history.latest_header())
    agent.call("and once more")
    return log


def test_a_session_our_agent_writes_in_dsh_format_reads_back_equal(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    log = _write_session(path)
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert header == {
        "type": "session",
        "version": 0,
        "id": "s1",
        "createdAt": header["createdAt"],
        "delegationDepth": 0,
    }
    back = EventLog.replay(path)
    assert back.codec.format == "dsh"
    assert [(e.seq, e.type, e.time, thaw(e.data)) for e in back.events] == [
        (e.seq, e.type, e.time, thaw(e.data)) for e in log.events
    ]
    assert [(e.surface_op, e.source_event_seqs) for e in back.events] == [
        (e.surface_op, e.source_event_seqs) for e in log.events
    ]
    assert back.messages() == log.messages()
    assert back.node_seqs == log.node_seqs and back.replace_generation == 1


def test_what_we_write_is_dshs_shape(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    _write_session(path)
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    assert all(isinstance(r["time"], int) for r in records)
    assert not any("surface_op" in r or "source_event_seqs" in r for r in records)
    by_type: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_type.setdefault(record["type"], []).append(record)
    assistant = by_type["assistant/message"][0]["data"]
    assert [b["type"] for b in assistant["message"]["content"]] == [
        "reasoning",
        "text",
        "tool-call",
        "tool-call",
    ]
    assert assistant["message"]["source"]["kind"] == "model"
    result = by_type["tool/result"][0]["data"]["message"]
    first_call = assistant["message"]["content"][2]["id"]
    assert result["role"] == "user" and result["source"] == {"kind": "tool", "callId": first_call}
    header = by_type["request/header"][0]["data"]
    assert set(header["header"]) == {"config", "system", "tools"} and header["reason"] == "initial"
    assert header["header"]["tools"][0]["name"] == "look"
    start = by_type["compaction/start"][0]["data"]
    checkpoint = next(r for r in by_type["user/message"] if isinstance(r.get("surfaceOp"), dict))
    assert checkpoint["data"]["source"] == {
        "kind": "plugin",
        "plugin": "compact",
        "compactionId": start["compactionId"],
    }
    assert start["turn"] is None and "compactionId" in by_type["compaction/end"][0]["data"]
    summary = by_type["compaction/summary"][0]["data"]
    assert {"shadowedRange", "shadowedSeqs", "shadowedTokenCount", "summary"} <= set(summary)
    assert summary["summary"][0]["type"] == "text"


# --- the command line on a dsh session file -----------------------------------------------------


def _cli_args(file: Path, base_url: str, *extra: str) -> list[str]:
    from support.summary_server import KEY_ENV

    return [
        "compact", "--file", str(file), "--engine", "dsh", "--provider", "openai-compatible",
        "--base-url", base_url, "--model", "m", "--api-key-env", KEY_ENV, *extra,
    ]  # fmt: skip


def test_ctxlab_compact_and_undo_work_on_a_dsh_file_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from support.summary_server import KEY_ENV, SummaryServer

    from lab.cli import main

    folder = tmp_path / "fixture-two-turns-resumed"
    folder.mkdir()
    file = folder / "session.jsonl"
    shutil.copy(DATA / "two-turns-resumed" / "session.jsonl", file)
    before = file.read_bytes()
    monkeypatch.setenv(KEY_ENV, "sk-test-000000000000000000")
    with SummaryServer("## Primary Request and Intent\n- ports and logging") as server:
        assert main(_cli_args(file, server.base_url)) == 0
    assert file.read_bytes().startswith(before)  # appended in place, nothing rewritten
    log = EventLog.replay(file)
    new = [e.type for e in log.events[len(recorded("two-turns-resumed")["eventTypes"]) :]]
    assert new == [
        "session/end-seed",
        "compaction/start",
        "compaction/summary",
        "user/message",
        "compaction/end",
    ]  # the resume mark, then the four events dsh appends
    checkpoint = log.message(log.node_seqs[0])
    assert checkpoint.name == CHECKPOINT_NAME and "ports and logging" in checkpoint.content
    assert len(log.node_seqs) == 2  # the previous checkpoint merged in, the last reply kept
    sent = server.bodies[-1]["messages"]
    assert sent[0] == {"role": "system", "content": "You are a careful coding assistant."}
    assert "<compacted-summary>" in sent[1]["content"]  # the prefix replayed, dsh's checkpoint
    line = json.loads(file.read_text(encoding="utf-8").splitlines()[-2])
    assert line["data"]["source"]["plugin"] == "compact" and line["surfaceOp"]["op"] == "replace"
    assert main(["compact", "--file", str(file), "--undo"]) == 0
    undone = EventLog.replay(file)
    assert list(undone.messages()) == list(
        EventLog.replay(DATA / "two-turns-resumed" / "session.jsonl").messages()
    )
    records = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()]
    undo = next(r for r in records if r["type"] == "compaction/undo")
    assert undo["ignorable"] is True  # dsh does not know the type; it may skip it
    assert main(["show", "--file", str(file)]) == 0
    out = capsys.readouterr().out
    assert "format: dsh, surface: 4 nodes" in out and "compaction" in out and "tok" in out


def test_ctxlab_show_prints_an_our_format_session_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lab.cli import main

    log = EventLog(tmp_path / "u" / "events" / "s1.jsonl")
    log.append_message(Message.user("hello"))
    log.append_message(Message.assistant("hi"))
    assert main(["show", "--workspace", str(tmp_path), "--user", "u", "--session", "s1"]) == 0
    out = capsys.readouterr().out
    assert "format: ctxlab, surface: 2 nodes" in out
    assert "tokens (dsh heuristic): surface 19" in out  # (4+ceil(5/4)+4) + (4+ceil(2/4)+4)


def test_log_format_refuses_a_session_of_the_other_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lab.cli import main

    file = tmp_path / "session.jsonl"
    shutil.copy(DATA / "one-turn" / "session.jsonl", file)
    assert main(["show", "--file", str(file), "--log-format", "ctxlab"]) == 2
    assert "is a dsh session log, not ctxlab" in capsys.readouterr().err
    assert main(["show", "--file", str(file), "--log-format", "dsh"]) == 0


def test_our_own_format_reads_content_blocks_and_refuses_what_it_cannot_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    blocks: list[dict[str, Any]] = [
        {"type": "reasoning", "text": "r"},
        {"type": "text", "text": "hi"},
    ]
    record = {"role": "assistant", "content": blocks}
    event: dict[str, Any] = {"seq": 0, "type": "assistant/message", "time": "t"}
    event["data"] = {"message": record}
    event["surface_op"] = "append"
    path.write_text(json.dumps(event) + "\n", encoding="utf-8")
    assert EventLog.replay(path).messages() == [Message.assistant("hi", reasoning_content="r")]
    blocks.append({"type": "image", "attachment": {}})
    path.write_text(json.dumps(event) + "\n" + json.dumps(event | {"seq": 1}) + "\n")
    with pytest.raises(LogCorruptError, match=r"s.jsonl:1: .*event 0.*image"):
        EventLog.replay(path)


def test_harness_agent_writes_and_resumes_a_dsh_format_session(tmp_path: Path) -> None:
    from harness.harness_agent import HarnessAgent

    model = FunctionModel(lambda request: "ok", model_name="deepseek-v4-flash")
    options: dict[str, Any] = {"workspace_root": tmp_path, "user_id": "u", "session_id": "s1"}
    first = HarnessAgent(
        model, store="eventlog", log_format="dsh", compaction=DshConfig(), **options
    )
    try:
        first.call("hello")
    finally:
        first.close()
    file = tmp_path / "u" / "events" / "s1.jsonl"
    records = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()]
    assert records[0]["type"] == "session" and records[0]["id"] == "s1"
    assistant = next(r for r in records if r["type"] == "assistant/message")
    assert assistant["data"]["message"]["source"]["model"] == "deepseek-v4-flash"
    again = HarnessAgent(model, store="eventlog", compaction=DshConfig(), **options)  # resumed
    try:
        again.call("more")
        assert [m.content for m in again.agent.history.messages()] == ["hello", "ok", "more", "ok"]
    finally:
        again.close()
    assert EventLog.replay(file).codec.format == "dsh"
    with pytest.raises(EventLogError, match="is a dsh session log, not ctxlab"):
        HarnessAgent(
            model, store="eventlog", log_format="ctxlab", compaction=DshConfig(), **options
        )
