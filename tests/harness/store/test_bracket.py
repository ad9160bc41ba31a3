"""The one compaction bracket on the event log, as both engines and manual compaction use it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.sessions import run_turns

import harness.fs.files
import harness.store.eventlog.bracket as bracket_module
from harness.compaction.agentscope import CompactionConfig, Compactor, resolve_thresholds
from harness.compaction.dsh import DshConfig, DshEngine
from harness.compaction.manual import ManualCompaction
from harness.errors import CompactionBusyError, EventLogError, ServerError, SummaryError
from harness.messages import Message
from harness.model import ChatRequest
from harness.store.eventlog import EventLog, EventLogHistory, read_events
from harness.store.eventlog.bracket import compaction_bracket, refuse_if_busy
from harness.testing import FunctionModel

ID = re.compile(r"[0-9a-f]{32}")


def _log(tmp_path: Path, turns: int = 4) -> EventLog:
    log = EventLog.open(tmp_path / "s.jsonl")
    for n in range(turns):
        log.append_message(Message.user(f"question {n} " + "x" * 400))
        log.append_message(Message.assistant(f"answer {n} " + "y" * 400))
    return log


def _brackets(log: EventLog) -> list[tuple[str, dict[str, object]]]:
    return [
        (e.type, dict(e.data))
        for e in log.events
        if e.type in {"compaction/start", "compaction/end"}
    ]


def test_the_bracket_appends_start_and_end_with_one_id(tmp_path: Path) -> None:
    log = _log(tmp_path)
    with compaction_bracket(log, engine="dsh", trigger="manual") as bracket:
        assert log.open_compaction() == bracket.start  # the start is the lock while inside
        assert bracket.end is None
    assert bracket.end is not None and log.open_compaction() is None
    cid = bracket.compaction_id
    assert ID.fullmatch(cid)
    assert _brackets(log) == [
        ("compaction/start", {"engine": "dsh", "compaction_id": cid, "trigger": "manual"}),
        ("compaction/end", {"compaction_id": cid, "error": None}),
    ]
    assert read_events(log.path) == list(log.events)  # as DeepSeek-Harness's log holds them


def test_a_busy_log_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    log = _log(tmp_path)
    with compaction_bracket(log, engine="agentscope", trigger="tokens"):
        count = len(log.events)
        with (
            pytest.raises(CompactionBusyError, match="in progress"),
            compaction_bracket(log, engine="dsh", trigger="pressure"),
        ):
            pytest.fail("a second compaction ran inside the first")
        with pytest.raises(CompactionBusyError):
            refuse_if_busy(log)
        assert len(log.events) == count
    refuse_if_busy(log)  # closed: free again


def test_an_error_closes_the_bracket_with_it_and_is_raised(tmp_path: Path) -> None:
    log = _log(tmp_path)
    with (
        pytest.raises(SummaryError, match="nothing"),
        compaction_bracket(log, engine="dsh", trigger="pressure"),
    ):
        raise SummaryError("the summary was nothing")
    (_, start), (_, end) = _brackets(log)
    assert end == {
        "compaction_id": start["compaction_id"],
        "error": "SummaryError: the summary was nothing",
    }
    assert log.open_compaction() is None


def test_an_unwritable_log_keeps_the_start_as_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = _log(tmp_path)
    real = harness.fs.files.append_fd

    def disk_full(fd: int, text: str, sync: bool = True) -> None:
        raise OSError(28, "No space left on device")

    with (
        pytest.raises(OSError, match="No space"),  # the original error, not the end's
        compaction_bracket(log, engine="agentscope", trigger="tokens") as bracket,
    ):
        monkeypatch.setattr(harness.fs.files, "append_fd", disk_full)
        log.append_message(Message.assistant("lost"))
    monkeypatch.setattr(harness.fs.files, "append_fd", real)
    assert log.write_error is not None
    assert log.open_compaction() == bracket.start  # the unclosed start stays as the lock
    with pytest.raises(CompactionBusyError):
        refuse_if_busy(log)
    reopened = EventLog.open(log.path)  # an earlier process's start: stale, never busy
    assert reopened.stale_compaction() == bracket.start
    assert reopened.open_compaction() is None


def test_an_end_that_cannot_be_written_leaves_the_lock_not_a_second_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = _log(tmp_path)
    with (
        pytest.raises(ValueError, match="boom"),
        compaction_bracket(log, engine="dsh", trigger="manual"),
    ):
        log.write_error = "the disk went away"  # as a failed append leaves it
        raise ValueError("boom")
    assert log.open_compaction() is not None
    with pytest.raises(EventLogError):
        log.append_message(Message.user("refused until reopened"))


def _agentscope_compaction(log: EventLog) -> None:
    config = CompactionConfig(trigger_messages=3, trigger_tokens=None, keep_messages=2)
    model = FunctionModel(lambda r: "- a summary")
    compactor = Compactor(config, resolve_thresholds(config, "m"), model)
    compaction = compactor.force(log.messages())
    assert compaction is not None
    EventLogHistory(log).apply_compaction(compaction)


def test_both_engines_write_the_same_bracket(tmp_path: Path) -> None:
    agentscope = _log(tmp_path / "a")
    _agentscope_compaction(agentscope)
    dsh = _log(tmp_path / "d")
    engine = DshEngine(dsh, FunctionModel(lambda r: "- a summary"), DshConfig())
    result = engine.compact_now(ChatRequest(messages=(Message.system("s"),)))
    assert result is not None
    assert not hasattr(engine, "results")  # results come back as values, never pile up
    for log, name in ((agentscope, "agentscope"), (dsh, "dsh")):
        (_, start), (_, end) = _brackets(log)
        assert set(start) == {"engine", "compaction_id", "trigger"} and start["engine"] == name
        assert ID.fullmatch(str(start["compaction_id"]))
        assert end == {"compaction_id": start["compaction_id"], "error": None}
    assert dsh.events[result.end_seq].type == "compaction/end"
    assert dsh.events[result.start_seq].type == "compaction/start"


def test_a_failed_dsh_summary_closes_the_bracket_with_its_error(tmp_path: Path) -> None:
    log = _log(tmp_path)

    def failing(request: ChatRequest) -> str:
        raise ServerError("backend down", status_code=503)

    engine = DshEngine(log, FunctionModel(failing), DshConfig())
    with pytest.raises(SummaryError, match="backend down"):
        engine.compact_now(ChatRequest(messages=(Message.system("s"),)))
    (_, start), (_, end) = _brackets(log)
    assert end["compaction_id"] == start["compaction_id"]
    assert "backend down" in str(end["error"])
    assert log.open_compaction() is None


def test_a_log_with_the_old_twelve_digit_dsh_ids_still_opens_and_undoes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    base = run_turns(
        tmp_path, FunctionModel(lambda r: "ok"), [f"q{n} " + "x" * 300 for n in range(4)]
    )
    old_id = iter(["0123456789ab"])  # what DshEngine wrote before the one bracket
    monkeypatch.setattr(bracket_module, "new_compaction_id", lambda: next(old_id))
    manual = ManualCompaction(base, "s1", FunctionModel(lambda r: "- four questions"))
    assert manual.compact("dsh").outcome == "compacted"
    monkeypatch.undo()
    reopened = EventLog.open(base / "events/s1.jsonl")
    assert [e.data["compaction_id"] for e in reopened.events if e.type == "compaction/end"] == [
        "0123456789ab"
    ]
    assert manual.undo().undone == "0123456789ab"
    assert manual.compact("dsh").outcome == "compacted"  # and a new-format one follows it
