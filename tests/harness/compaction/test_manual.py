"""Manual compaction of a saved session: idle only, snapshot and undo, audit, error classes,
and the ``ctxlab compact`` command against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from support.manual_sessions import (  # noqa: F401  (server is a fixture)
    SUMMARY,
    answer,
    saved_session,
    server,
    session_messages,
)
from support.sessions import run_turns
from support.summary_server import KEY_ENV, SummaryServer, compact_args

from harness.compaction.agentscope import Compactor
from harness.compaction.dsh import DshEngine
from harness.compaction.manual import ManualCompaction
from harness.errors import (
    ConfigError,
    ManualCompactionError,
    PathEscapeError,
    ServerError,
    SurfaceChangedError,
)
from harness.fs.locks import try_exclusive
from harness.messages import Message, ToolCall
from harness.model import ChatRequest
from harness.store.eventlog import EventLog
from harness.store.statefile import JsonStateStore
from harness.testing import FunctionModel
from lab.cli import main


@pytest.mark.parametrize("store", ["eventlog", "state"])
def test_agentscope_compaction_audit_and_undo(tmp_path: Path, store: str) -> None:
    base = saved_session(tmp_path, store)
    original = session_messages(base, store)
    manual = ManualCompaction(base, "s1", FunctionModel(answer), keep_messages=2)
    record = manual.compact("agentscope", instructions="keep the customer code")
    assert (record.outcome, record.messages_before, record.messages_after) == ("compacted", 8, 3)
    assert record.cutoff == 6 and record.summary_chars == len(SUMMARY)
    assert len(session_messages(base, store)) == 3
    started, done = manual.audit_log()
    assert (started["outcome"], done["outcome"]) == ("started", "compacted")
    assert started["attempt"] == done["attempt"]
    assert done["action"] == "compact" and done["instructions"] == "keep the customer code"
    assert (done["pid"], done["host"]) == (os.getpid(), socket.gethostname()) and done["user"]
    manual.undo()
    assert session_messages(base, store) == original
    assert [a["action"] for a in manual.audit_log()] == ["compact", "compact", "undo"]
    with pytest.raises(ManualCompactionError, match="Nothing to undo"):
        manual.undo()  # undone already: a second undo has nothing to restore


def _more_turns(root: Path, store: str, texts: list[str]) -> None:
    run_turns(root, FunctionModel(answer), texts, store)


@pytest.mark.parametrize("store", ["eventlog", "state"])
def test_undo_keeps_the_turns_added_after_the_compaction(tmp_path: Path, store: str) -> None:
    base = saved_session(tmp_path, store)
    original = session_messages(base, store)
    manual = ManualCompaction(base, "s1", FunctionModel(answer))
    manual.compact("agentscope")
    _more_turns(tmp_path, store, ["later one", "later two"])
    later = session_messages(base, store)[3:]
    assert [m.content for m in later if m.role == "user"] == ["later one", "later two"]
    manual.undo()
    assert session_messages(base, store) == original + later  # 20 messages, not the snapshot's 8


def test_undo_on_the_state_store_refuses_when_it_would_lose_turns(tmp_path: Path) -> None:
    base = saved_session(tmp_path, "state")
    manual = ManualCompaction(base, "s1", FunctionModel(answer))
    manual.compact("agentscope")
    store = JsonStateStore(base / "state")
    state = store.load("s1")
    state.context = [Message.user("compacted again by the agent"), *state.context[-1:]]
    store.save(state)
    files = {p: p.read_bytes() for p in (base / "state").iterdir()}
    with pytest.raises(ManualCompactionError) as info:
        manual.undo()
    assert info.value.code == "changed" and "nothing was changed" in str(info.value)
    assert {p: p.read_bytes() for p in (base / "state").iterdir()} == files


@pytest.mark.parametrize("store", ["eventlog", "state"])
def test_undo_restores_only_its_own_session(tmp_path: Path, store: str) -> None:
    base = saved_session(tmp_path, store)
    other = ManualCompaction(base, "s1-b", FunctionModel(answer))
    for name in ("events/s1.jsonl", "state/s1.json", "state/s1.journal.jsonl"):
        if (base / name).exists():
            target = base / name.replace("s1", "s1-b")
            target.write_bytes((base / name).read_bytes())
    other.compact("agentscope")
    with pytest.raises(ManualCompactionError, match="Nothing to undo"):
        ManualCompaction(base, "s1", FunctionModel(answer)).undo()
    assert len(session_messages(base, store)) == 8


@pytest.mark.parametrize("store", ["eventlog", "state"])
def test_a_failed_compaction_leaves_nothing_to_undo(tmp_path: Path, store: str) -> None:
    base = saved_session(tmp_path, store)
    ManualCompaction(base, "s1", FunctionModel(answer)).compact("agentscope")
    ManualCompaction(base, "s1", FunctionModel(answer)).undo()  # an older, undone one

    def failing(request: ChatRequest) -> str:
        raise ServerError("backend down", status_code=503)

    manual = ManualCompaction(base, "s1", FunctionModel(failing))
    with pytest.raises(ManualCompactionError):
        manual.compact("agentscope")
    assert manual.audit_log()[-2]["outcome"] == "started"
    assert manual.audit_log()[-1]["error"]
    with pytest.raises(ManualCompactionError, match="Nothing to undo"):
        manual.undo()
    assert len(session_messages(base, store)) == 8
    assert not list((base / "snapshots").rglob("*.json")) if (base / "snapshots").exists() else True


@pytest.mark.parametrize("store", ["eventlog", "state"])
def test_keep_0_is_refused_before_anything_is_touched(tmp_path: Path, store: str) -> None:
    base = saved_session(tmp_path, store)
    audit_before = (base / "audit.jsonl").read_bytes() if (base / "audit.jsonl").exists() else b""
    with pytest.raises(ConfigError, match="keep_messages"):
        ManualCompaction(base, "s1", FunctionModel(answer), keep_messages=0)
    audit_after = (base / "audit.jsonl").read_bytes() if (base / "audit.jsonl").exists() else b""
    assert audit_after == audit_before  # refused where it is set: no attempt was made
    assert not (base / "locks").exists() or not list((base / "locks").iterdir())
    assert not (base / "snapshots").exists() or not list((base / "snapshots").rglob("*.json"))
    assert len(session_messages(base, store)) == 8


def test_custom_instructions_reach_the_summary_call(tmp_path: Path) -> None:
    base = saved_session(tmp_path)
    model = FunctionModel(answer)
    ManualCompaction(base, "s1", model).compact("dsh", instructions="keep order SO-1")
    summary_request = model.requests[-1]
    assert summary_request.purpose == "summary"
    assert "keep order SO-1" in summary_request.messages[-1].content


def test_dsh_manual_compaction_replays_the_logged_header(tmp_path: Path) -> None:
    base = saved_session(tmp_path)
    model = FunctionModel(lambda r: "- the user asked four questions")
    record = ManualCompaction(base, "s1", model).compact("dsh")
    assert record.outcome == "compacted"
    request = model.requests[-1]
    assert request.messages[0] == Message.system("system")  # the logged request header
    log = EventLog.replay(base / "events/s1.jsonl")
    types = [e.type for e in log.events if e.type.startswith("compaction/")]
    assert types == ["compaction/start", "compaction/summary", "compaction/end"]
    assert len(log.messages()) == record.messages_after


def test_busy_while_locked_or_a_tool_call_is_pending(tmp_path: Path) -> None:
    base = saved_session(tmp_path)
    held = try_exclusive(base / "locks/s1.lock")  # another open file holds the OS lock
    assert held is not None
    try:
        with pytest.raises(ManualCompactionError) as info:
            ManualCompaction(base, "s1", FunctionModel(answer)).compact()
    finally:
        os.close(held)
    assert info.value.code == "busy" and "locked by pid" in str(info.value)
    log = EventLog.open(base / "events/s1.jsonl")
    log.append_message(Message.assistant("", [ToolCall("c1", "lookup", "{}")]))
    model = FunctionModel(answer)
    with pytest.raises(ManualCompactionError) as info:
        ManualCompaction(base, "s1", model).compact()
    assert info.value.code == "busy" and "waiting for its result" in str(info.value)
    assert model.requests == []  # nothing was asked of the model


def test_a_failed_summary_changes_nothing_and_is_audited(tmp_path: Path) -> None:
    base = saved_session(tmp_path)
    before = EventLog.replay(base / "events/s1.jsonl").messages()

    def failing(request: ChatRequest) -> str:
        raise ServerError("backend down", status_code=503)

    manual = ManualCompaction(base, "s1", FunctionModel(failing))
    with pytest.raises(ManualCompactionError) as info:
        manual.compact("agentscope")
    assert info.value.code == "summary"
    assert EventLog.replay(base / "events/s1.jsonl").messages() == before
    assert manual.audit_log()[-1]["outcome"] == "summary"


def test_a_history_that_moved_is_classified_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = saved_session(tmp_path)

    def moved(*args: object, **kwargs: object) -> None:
        raise SurfaceChangedError("the selected span changed during summarization")

    monkeypatch.setattr(DshEngine, "compact_now", moved)
    manual = ManualCompaction(base, "s1", FunctionModel(answer))
    with pytest.raises(ManualCompactionError) as info:
        manual.compact("dsh")
    assert info.value.code == "changed"
    assert manual.audit_log()[-1]["outcome"] == "changed"


def test_ctxlab_compact_command(tmp_path: Path, server: SummaryServer, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    saved_session(tmp_path)
    monkeypatch.setenv(KEY_ENV, "sk-test-000000000000000000")
    args = compact_args(tmp_path, server.url)
    assert main(args) == 0
    assert "8 → 3 messages" in capsys.readouterr().out
    assert server.bodies[-1]["model"] == "m"
    assert main([*args, "--undo"]) == 0
    assert len(EventLog.replay(tmp_path / "u/events/s1.jsonl").messages()) == 8
    assert main(compact_args(tmp_path, server.url, session="nope")) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_snapshot_that_cannot_be_written_is_a_persistence_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = saved_session(tmp_path, "state")

    def full_disk(path: object, data: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("harness.fs.path.WorkspacePath.write_atomic", full_disk)
    model = FunctionModel(answer)
    with pytest.raises(ManualCompactionError) as info:
        ManualCompaction(base, "s1", model).compact()
    assert info.value.code == "persistence"
    assert model.requests == []


def test_an_interrupt_is_reported_as_cancelled_and_releases_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = saved_session(tmp_path)

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Compactor, "force", interrupted)
    manual = ManualCompaction(base, "s1", FunctionModel(answer))
    with pytest.raises(ManualCompactionError) as info:
        manual.compact()
    assert info.value.code == "cancelled"
    assert not (base / "locks/s1.lock").exists()


@pytest.mark.parametrize("engine", ["agentscope", "dsh"])
def test_a_session_that_is_not_there_is_missing_not_busy(tmp_path: Path, engine: str) -> None:
    base = saved_session(tmp_path)
    model = FunctionModel(answer)
    with pytest.raises(ManualCompactionError) as info:
        ManualCompaction(base, "s9", model).compact(engine)  # type: ignore[arg-type]
    assert info.value.code == "missing"
    assert ManualCompaction(base, "s9", model).audit_log()[-1]["outcome"] == "missing"
    assert model.requests == []


def test_dsh_on_a_state_file_session_is_missing_its_event_log(tmp_path: Path) -> None:
    base = saved_session(tmp_path, "state")
    with pytest.raises(ManualCompactionError, match="needs an event-log session") as info:
        ManualCompaction(base, "s1", FunctionModel(answer)).compact("dsh")
    assert info.value.code == "missing"


def test_undo_whose_snapshot_is_gone_is_no_snapshot_and_changes_nothing(tmp_path: Path) -> None:
    base = saved_session(tmp_path, "state")
    manual = ManualCompaction(base, "s1", FunctionModel(answer))
    record = manual.compact("agentscope")
    assert record.snapshot is not None
    Path(record.snapshot).unlink()
    compacted = session_messages(base, "state")
    with pytest.raises(ManualCompactionError) as info:
        manual.undo()
    assert info.value.code == "no-snapshot"
    assert manual.audit_log()[-1]["outcome"] == "no-snapshot"
    assert session_messages(base, "state") == compacted


@pytest.mark.parametrize(
    "planted",
    [b"[" * 100_000 + b"]" * 100_000, b"{not json", b"[1, 2]", b"\xff"],
    ids=["nested-too-deep", "not-json", "a-list", "not-utf8"],
)
def test_undo_whose_snapshot_is_damaged_is_damaged_and_changes_nothing(
    tmp_path: Path, planted: bytes
) -> None:
    base = saved_session(tmp_path, "state")
    manual = ManualCompaction(base, "s1", FunctionModel(answer))
    record = manual.compact("agentscope")
    assert record.snapshot is not None
    Path(record.snapshot).write_bytes(planted)
    compacted = session_messages(base, "state")
    with pytest.raises(ManualCompactionError) as info:
        manual.undo()
    assert info.value.code == "damaged" and record.snapshot in str(info.value)
    assert "\n" not in str(info.value)
    assert session_messages(base, "state") == compacted


def test_an_unknown_engine_is_refused_before_anything_is_done(tmp_path: Path) -> None:
    base = saved_session(tmp_path)
    manual = ManualCompaction(base, "s1", FunctionModel(answer))
    with pytest.raises(ConfigError, match="engine must be agentscope or dsh, not 'claude'"):
        manual.compact("claude")  # type: ignore[arg-type]
    assert manual.audit_log() == []


def test_a_symlinked_snapshots_folder_is_never_written_through(tmp_path: Path) -> None:
    """Nothing written outside the workspace: ``snapshots/`` swapped for a symlink to an outside
    folder; the compaction fails (its audit line says why) and nothing lands outside the
    workspace."""
    base = saved_session(tmp_path / "ws", "state")
    outside = tmp_path / "outside"
    outside.mkdir()
    (base / "snapshots").symlink_to(outside, target_is_directory=True)
    model = FunctionModel(answer)
    before = session_messages(base, "state")
    with pytest.raises(ManualCompactionError, match="symlink") as info:
        ManualCompaction(base, "s1", model).compact()
    assert info.value.code == "persistence"
    assert list(outside.rglob("*")) == []
    assert model.requests == []  # refused before the summary call
    assert session_messages(base, "state") == before


def test_a_symlinked_audit_file_is_never_appended_through(tmp_path: Path) -> None:
    base = saved_session(tmp_path / "ws", "eventlog")
    outside = tmp_path / "outside.jsonl"
    outside.write_text("")
    (base / "audit.jsonl").symlink_to(outside)
    with pytest.raises(PathEscapeError, match="symlink"):
        ManualCompaction(base, "s1", FunctionModel(answer)).compact()
    assert outside.read_text() == ""
