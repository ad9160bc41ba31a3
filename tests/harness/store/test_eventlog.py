"""Tests of harness.store.eventlog: events, the surface fold, the JSONL log, recovery, the
compaction lock, and the AgentScope compaction committed as log appends inside a real agent."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import harness.fs.files
from harness.agent import Agent
from harness.compaction.agentscope import (
    Compaction,
    CompactionConfig,
    CompactionRecord,
    Compactor,
    Cutoff,
    PruneConfig,
)
from harness.compaction.agentscope.config import resolve_thresholds
from harness.compaction.factory import make_engine
from harness.errors import (
    CompactionBusyError,
    EventLogError,
    LogCorruptError,
    SurfaceError,
)
from harness.messages import Message, ToolCall, validate_pairing
from harness.model import ChatRequest
from harness.store.eventlog import END_SEED, Event, EventLog, EventLogHistory, fold, read_events
from harness.store.history import History
from harness.testing import FunctionModel, ScriptedModel
from harness.tools import Tool


def ticking_clock() -> Callable[[], str]:
    """A clock that moves one second a call, so times are deterministic."""
    ticks = iter(range(10**6))
    return lambda: f"2025-01-01T00:00:{next(ticks):02d}Z"


def calls(*ids: str) -> Message:
    return Message.assistant("", [ToolCall(cid, "fetch", json.dumps({"n": 1})) for cid in ids])


def conversation() -> list[Message]:
    """user, a call with two parallel results, a text answer, another user turn."""
    return [
        Message.user("列出文件 please"),
        calls("c1", "c2"),
        Message.tool("c1", "a.txt\nb.txt", tool_name="fetch"),
        Message.tool("c2", "c.txt", tool_name="fetch"),
        Message.assistant("Three files."),
        Message.user("thanks"),
    ]


@pytest.fixture
def log_path(tmp_path: Path) -> Path:
    return tmp_path / "session.jsonl"


@pytest.fixture
def log(log_path: Path) -> EventLog:
    log = EventLog(log_path, clock=ticking_clock())
    log.append("session/start", {"session_id": "s1"})
    for message in conversation():
        log.append_message(message)
    return log


def checkpoint(text: str = "summary") -> Message:
    return Message.user(text, name="__compaction_summary__")


# --- events, the file, reload -------------------------------------------------------------------


def test_seqs_are_contiguous_and_the_file_is_one_readable_object_per_line(
    log: EventLog, log_path: Path
) -> None:
    assert [e.seq for e in log.events] == list(range(7))
    lines = log_path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 7
    assert [json.loads(line)["seq"] for line in lines] == list(range(7))
    assert "列出文件" in lines[1]  # UTF-8 as written, not \u escapes
    assert lines == [e.to_json() for e in log.events]
    assert log.events[3].source_event_seqs == (2,)  # a tool result cites its call's event


def test_reload_gives_identical_events_surface_and_messages(log: EventLog, log_path: Path) -> None:
    log.replace_span(0, 4, checkpoint(), extra_sources=(0,))
    reloaded = EventLog.open(log_path)
    assert reloaded.events[:-1] == log.events
    assert reloaded.events[-1].type == END_SEED
    assert reloaded.surface == log.surface
    assert reloaded.messages() == log.messages()
    assert reloaded.recovered == []
    assert read_events(log_path) == list(reloaded.events)


def test_event_round_trip_and_deep_freeze() -> None:
    event = Event(0, "user/message", "t", {"message": Message.user("x").to_record()}, "append")
    assert Event.from_json(event.to_json()) == event
    with pytest.raises(TypeError):
        event.data["message"]["content"] = "changed"  # type: ignore[index]
    assert event.message == Message.user("x")


def test_fold_equals_the_live_surface_after_appends_and_replaces(log: EventLog) -> None:
    pruned = Message.tool("c1", "a.txt ...(pruned)", tool_name="fetch")
    log.replace_span(2, 2, pruned)
    log.replace_span(0, 3, checkpoint())
    log.append_message(Message.assistant("welcome"))
    assert fold(log.events) == log.surface
    assert log.surface.nodes == (8, 5, 6, 9)
    assert log.surface.replace_generation == 2
    assert log.messages() == [
        checkpoint(),
        Message.assistant("Three files."),
        Message.user("thanks"),
        Message.assistant("welcome"),
    ]
    assert [seq for seq, _ in log.node_messages()] == list(log.surface.nodes)


def test_a_new_log_refuses_a_file_that_already_holds_events(log_path: Path, log: EventLog) -> None:
    with pytest.raises(EventLogError, match=r"EventLog\.open"):
        EventLog(log_path)


def test_an_in_memory_log_writes_nothing(tmp_path: Path) -> None:
    log = EventLog()
    log.append_message(Message.user("hi"))
    assert log.messages() == [Message.user("hi")]
    assert list(tmp_path.iterdir()) == []


# --- invalid events are rejected, nothing written -------------------------------------------


def _user(text: str = "x") -> dict[str, Any]:
    return {"message": Message.user(text).to_record()}


def _result(call_id: str) -> dict[str, Any]:
    return {"message": Message.tool(call_id, "pruned").to_record()}


def _replace(start: int, end: int) -> dict[str, Any]:
    return {"op": "replace", "start": start, "end": end}


INVALID: dict[str, Callable[[EventLog], object]] = {
    "replace of a missing position": lambda log: log.replace_span(4, 9, checkpoint()),
    "start after end": lambda log: log.append(
        "user/message", _user(), surface_op=_replace(3, 2), source_event_seqs=(1, 2, 3)
    ),
    "surface type without op": lambda log: log.append("user/message", _user()),
    "non-surface type with op": lambda log: log.append("turn/start", {}, surface_op="append"),
    "non-surface type with sources": lambda log: log.append("turn/end", {}, source_event_seqs=[1]),
    "source cites a later seq": lambda log: log.append(
        "user/message", _user(), surface_op="append", source_event_seqs=(7,)
    ),
    "duplicate sources": lambda log: log.append(
        "user/message", _user(), surface_op="append", source_event_seqs=(1, 1)
    ),
    "replace misses a shadowed node": lambda log: log.append(
        "user/message", _user(), surface_op=_replace(1, 3), source_event_seqs=(1, 2)
    ),
    "replace op with an extra key": lambda log: log.append(
        "user/message", _user(), surface_op={**_replace(0, 0), "x": 1}, source_event_seqs=(1,)
    ),
    "negative position": lambda log: log.append(
        "user/message", _user(), surface_op=_replace(-1, 0), source_event_seqs=(1,)
    ),
    "tool/result shadowing two nodes": lambda log: log.replace_span(
        2, 3, Message.tool("c1", "pruned")
    ),
    "tool/result shadowing a user message": lambda log: log.replace_span(
        0, 0, Message.tool("c1", "pruned")
    ),
    "tool/result answering another call": lambda log: log.append(
        "tool/result", _result("c2"), surface_op=_replace(3, 3), source_event_seqs=(3,)
    ),
    "message of the wrong role": lambda log: log.append(
        "assistant/message", _user(), surface_op="append"
    ),
    "system message": lambda log: log.append_message(Message.system("be brief")),
    "data that is not JSON": lambda log: log.append("note", {"value": object()}),
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_events_are_rejected_and_nothing_is_written(
    case: str, log: EventLog, log_path: Path
) -> None:
    before = (log_path.read_bytes(), log.events, log.surface)
    with pytest.raises(EventLogError):
        INVALID[case](log)
    assert (log_path.read_bytes(), log.events, log.surface) == before
    assert log.write_error is None
    log.append_message(Message.assistant("still usable"))
    assert fold(log.events) == log.surface


def test_surface_rules_raise_surface_error(log: EventLog) -> None:
    with pytest.raises(SurfaceError, match="not on the surface"):
        log.replace_span(4, 9, checkpoint())
    with pytest.raises(SurfaceError, match="exactly one tool/result"):
        log.replace_span(0, 0, Message.tool("c1", "pruned"))
    with pytest.raises(SurfaceError, match="must cite every shadowed node"):
        log.append("user/message", _user(), surface_op=_replace(1, 3), source_event_seqs=(1, 2))


# --- crash recovery ---------------------------------------------------------------------------


def test_a_torn_last_line_is_truncated_reported_and_warned(
    log: EventLog, log_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    whole = log_path.read_bytes()
    line = Event(7, "user/message", "t", _user("半行"), "append").to_json().encode()
    with log_path.open("ab") as handle:
        handle.write(line[: len(line) - 9])  # cut inside the line (and inside a UTF-8 char)
    with caplog.at_level(logging.WARNING, logger="harness.store.eventlog"):
        reloaded = EventLog.open(log_path)
    assert reloaded.recovered and "torn last line 8" in reloaded.recovered[0]
    assert "torn last line" in caplog.text
    assert reloaded.events[:7] == log.events
    assert reloaded.events[7].type == END_SEED
    assert reloaded.events[7].data["recovered"] == tuple(reloaded.recovered)
    assert log_path.read_bytes().startswith(whole)
    assert read_events(log_path) == list(reloaded.events)


def test_an_unreadable_last_line_with_its_newline_is_also_recovered(
    log: EventLog, log_path: Path
) -> None:
    harness.fs.files.append_text(log_path, '{"seq": 7, "type": "us\n')
    reloaded = EventLog.open(log_path)
    assert "unreadable last line 8" in reloaded.recovered[0]
    assert reloaded.surface == log.surface


def test_a_corrupt_line_in_the_middle_raises_and_leaves_the_file(
    log: EventLog, log_path: Path
) -> None:
    lines = log_path.read_bytes().split(b"\n")
    lines[3] = lines[3][:20]
    log_path.write_bytes(b"\n".join(lines))
    before = log_path.read_bytes()
    with pytest.raises(LogCorruptError, match=":4:"):
        EventLog.open(log_path)
    assert log_path.read_bytes() == before


@pytest.mark.parametrize(
    "edit",
    [
        lambda e: {**e, "seq": 9},  # seqs not contiguous
        lambda e: {**e, "surface_op": {"op": "replace", "start": 0, "end": 99}},  # bad fold
        lambda e: {**e, "extra": 1},  # unknown field
    ],
)
def test_a_line_that_breaks_the_rules_is_corruption(
    edit: Callable[[dict[str, Any]], dict[str, Any]], log: EventLog, log_path: Path
) -> None:
    lines = log_path.read_text(encoding="utf-8").splitlines()
    lines[2] = json.dumps(edit(json.loads(lines[2])), ensure_ascii=False)
    log_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(LogCorruptError, match=":3:"):
        EventLog.open(log_path)


def test_a_failed_write_stops_the_log_until_it_is_reopened(
    log: EventLog, log_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = harness.fs.files.append_fd

    def disk_full(fd: int, text: str, sync: bool = True) -> None:
        real(fd, text[:10], sync)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(harness.fs.files, "append_fd", disk_full)
    with pytest.raises(OSError):
        log.append_message(Message.assistant("lost"))
    monkeypatch.setattr(harness.fs.files, "append_fd", real)
    assert log.write_error and "No space" in log.write_error
    with pytest.raises(EventLogError, match="reopen"):
        log.append_message(Message.assistant("refused"))
    reloaded = EventLog.open(log_path)
    assert reloaded.messages() == log.messages() == conversation()
    reloaded.append_message(Message.assistant("again"))
    assert fold(read_events(log_path)) == reloaded.surface


def test_replay_reads_the_file_without_touching_it(log: EventLog, log_path: Path) -> None:
    harness.fs.files.append_text(log_path, '{"seq": 7, "ty')  # a torn tail, left in place
    before = log_path.read_bytes()
    replayed = EventLog.replay(log_path)
    assert log_path.read_bytes() == before
    assert replayed.events == log.events and replayed.messages() == log.messages()
    assert replayed.recovered and replayed.path is None


def test_a_second_writer_is_folded_in_before_the_next_append(log: EventLog, log_path: Path) -> None:
    other = EventLog.open(log_path)  # appends an end-seed behind the first log's back
    other.append_message(Message.user("from the other writer"))
    event = log.append_message(Message.assistant("seq 9, not a duplicate 7"))
    assert event.seq == 9
    assert [e.seq for e in read_events(log_path)] == list(range(10))
    assert log.messages() == [*conversation(), Message.user("from the other writer"), event.message]
    assert other.sync() == 1 and other.messages() == log.messages()


def test_a_file_that_shrank_behind_the_log_stops_it(log: EventLog, log_path: Path) -> None:
    log_path.write_bytes(log_path.read_bytes()[:-1])
    with pytest.raises(EventLogError, match="shrank"):
        log.append_message(Message.assistant("refused"))


def test_reopening_twice_adds_one_end_seed(log: EventLog, log_path: Path) -> None:
    EventLog.open(log_path)
    again = EventLog.open(log_path)
    assert [e.type for e in again.events].count(END_SEED) == 1


# --- the lock ---------------------------------------------------------------------------------


def test_an_unclosed_start_is_live_then_stale_after_reopen(
    log: EventLog, log_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    start = log.append("compaction/start", {"engine": "test", "compaction_id": "k1"})
    assert log.open_compaction() == start
    assert log.stale_compaction() is None
    history = EventLogHistory(log)
    before = log_path.read_bytes()
    with pytest.raises(CompactionBusyError, match="seq 7"):
        history.apply_compaction(_compaction(history.messages(), cutoff=5))
    assert log_path.read_bytes() == before
    with caplog.at_level(logging.WARNING, logger="harness.store.eventlog"):
        reloaded = EventLog.open(log_path)
    assert reloaded.open_compaction() is None
    assert reloaded.stale_compaction() == start
    assert "seq 7 (k1) was never closed" in caplog.text
    history = EventLogHistory(reloaded)
    compaction = _compaction(history.messages(), cutoff=5)
    history.apply_compaction(compaction)  # a stale start never blocks
    assert history.messages() == list(compaction.messages)
    assert reloaded.stale_compaction() is None and reloaded.open_compaction() is None


def test_a_closed_compaction_is_neither_live_nor_stale(log: EventLog, log_path: Path) -> None:
    log.append("compaction/start", {"compaction_id": "k1"})
    log.append("compaction/end", {"compaction_id": "k1", "error": None})
    assert log.open_compaction() is None and log.stale_compaction() is None
    reloaded = EventLog.open(log_path)
    assert reloaded.open_compaction() is None and reloaded.stale_compaction() is None


# --- EventLogHistory.apply_compaction -----------------------------------------------------------


def _compaction(
    messages: list[Message], cutoff: int, tail: list[Message] | None = None
) -> Compaction:
    """A hand-made Compaction of ``messages`` at ``cutoff`` (kept tail given or unchanged)."""
    kept = tail if tail is not None else messages[cutoff:]
    event = CompactionRecord(
        engine="agentscope",
        trigger="messages",
        total_messages=len(messages),
        total_tokens=99,
        cutoff=Cutoff(cutoff, cutoff, "test"),
        keeping=len(kept),
        messages_after=len(kept) + 1,
        tokens_after=9,
        summary="summary",
        summary_failed=False,
        log_lines=(),
    )
    return Compaction(messages=(checkpoint(), *kept), event=event)


def test_apply_compaction_appends_the_bracket_and_replaces_pruned_results(log: EventLog) -> None:
    history = EventLogHistory(log)
    messages = history.messages()
    pruned = Message.tool("c2", "c...(pruned)", tool_name="fetch")
    compaction = _compaction(messages, cutoff=3, tail=[pruned, *messages[4:]])
    history.apply_compaction(compaction)
    assert history.messages() == list(compaction.messages)
    added = log.events[7:]
    assert [e.type for e in added] == [
        "compaction/start",
        "tool/result",
        "compaction/summary",
        "user/message",
        "compaction/end",
    ]
    start, prune, summary, replace, end = added
    assert prune.surface_op == _replace(4, 4) and prune.source_event_seqs == (7, 4)  # seqs
    assert summary.data["shadowed_seqs"] == (1, 2, 3)
    assert summary.data["shadowed_range"] == {"start": 1, "end": 3}
    assert replace.surface_op == _replace(1, 3)
    assert replace.source_event_seqs == (7, 9, 1, 2, 3)
    assert end.data == {"compaction_id": start.data["compaction_id"], "error": None}
    assert fold(log.events) == log.surface


def test_a_compaction_for_another_surface_is_refused_before_writing(log: EventLog) -> None:
    history = EventLogHistory(log)
    stale = _compaction(history.messages()[:-1], cutoff=3)
    events = log.events
    with pytest.raises(SurfaceError, match="another surface"):
        history.apply_compaction(stale)
    swapped = _compaction(history.messages(), cutoff=2, tail=history.messages()[2:][::-1])
    with pytest.raises(SurfaceError):
        history.apply_compaction(swapped)
    assert log.events == events


def test_a_failure_inside_the_bracket_closes_it_with_the_error(log: EventLog) -> None:
    history = EventLogHistory(log)
    messages = history.messages()
    event = _compaction(messages, cutoff=3).event
    bad = Compaction(messages=(Message.system("x"), *messages[3:]), event=event)
    with pytest.raises(SurfaceError, match="system messages"):
        history.apply_compaction(bad)
    end = log.events[-1]
    assert end.type == "compaction/end" and "SurfaceError" in end.data["error"]
    assert log.open_compaction() is None
    assert history.messages() == messages


# --- inside a real agent ------------------------------------------------------------------------


def fetch(n: int) -> str:
    """Return a long listing."""
    return "\n".join(f"row {n}-{i}: {'x' * 20}" for i in range(12))


FETCH = Tool.from_function(fetch)


def agent_script(rounds: int) -> Iterator[Message | str]:
    for r in range(rounds):
        yield Message.assistant("", [ToolCall(f"r{r}a", "fetch", '{"n": 1}'), _call(r, "b")])
        yield Message.assistant("", [_call(r, "c")])
        yield f"done with round {r}"


def _call(r: int, suffix: str) -> ToolCall:
    return ToolCall(f"r{r}{suffix}", "fetch", json.dumps({"n": r}))


def summariser(request: ChatRequest) -> str:
    text = request.messages[0].content
    return f"summary of {len(text)} chars, {text.count('Human:')} user turns"


def run_agent(history: EventLogHistory | None, rounds: int = 5) -> Agent:
    config = CompactionConfig(
        trigger_messages=9,
        trigger_tokens=None,
        keep_messages=6,
        keep_tokens=0,
        prune=PruneConfig(protect_tokens=1, minimum_tokens=1, max_output_chars=120),
        flush_before_compact=False,
    )
    kwargs: dict[str, Any] = {"history": history} if history is not None else {}
    with ScriptedModel(list(agent_script(rounds))) as model:
        engine = make_engine(config, model, summary_model=FunctionModel(summariser))
        agent = Agent(model, "sys", [FETCH], engine, **kwargs)
        for r in range(rounds):
            agent.call(f"user turn {r}: fetch please")
    return agent


def test_an_agent_on_the_log_matches_the_default_history(log_path: Path) -> None:
    log = EventLog(log_path)
    assert isinstance(EventLogHistory(log), History)
    agent = run_agent(EventLogHistory(log))
    reference = run_agent(None)
    assert agent.context == reference.context
    compactions = [e for e in log.events if e.type == "compaction/end"]
    assert len(compactions) >= 3
    assert all(e.data["error"] is None for e in compactions)
    pruned = [e for e in log.events if e.type == "tool/result" and e.replace_range]
    assert pruned, "no pruned tool result was replaced in a kept tail"
    texts = [e.message.content for e in log.events if e.type == "user/message" and e.message]
    assert all(f"user turn {r}: fetch please" in texts for r in range(5))
    assert sum(e.type == "tool/result" and not e.replace_range for e in log.events) == 15
    assert EventLog.replay(log_path).messages() == list(agent.context)
    assert EventLog.open(log_path).messages() == list(agent.context)
    assert fold(read_events(log_path)) == log.surface
    validate_pairing(agent.context)
    summaries = [e for e in log.events if e.type == "compaction/summary"]
    assert summaries and all(e.data["provider"] == "scripted" for e in summaries)  # who summarised


def test_compactor_result_applies_exactly(log: EventLog) -> None:
    config = CompactionConfig(
        trigger_messages=3, trigger_tokens=None, keep_messages=2, keep_tokens=0, prune=None
    )
    compactor = Compactor(config, resolve_thresholds(config, "function"), FunctionModel(summariser))
    history = EventLogHistory(log)
    compaction = compactor.compact_if_needed(history.messages())
    assert compaction is not None
    history.apply_compaction(compaction)
    assert history.messages() == list(compaction.messages)
    validate_pairing(history.messages())


def test_an_unchanged_request_header_is_logged_once(log_path: Path) -> None:
    log = EventLog(log_path)
    tool = Tool.from_function(lambda a: a, name="echo", description="echo a")
    agent = Agent(FunctionModel(lambda r: "ok"), "sys", tools=[tool], history=EventLogHistory(log))
    for _ in range(5):
        agent.call("hi")
    assert [e.type for e in log.events].count("request/header") == 1


def _log_file_opens(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Counts the ``os.open`` calls of the file ``name`` (each one a walk of its path)."""
    import os

    real, opened = os.open, [0]

    def counting(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        opened[0] += os.fspath(path) == name
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting)
    return opened


def test_an_open_and_each_append_walk_the_log_path_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the descriptor that holds the lock is the one the format is read from and the line
    # appended to: before, an open walked the path three times and each append twice
    path = tmp_path / "session.jsonl"
    EventLog(path).append_message(Message.user("hello"))
    opened = _log_file_opens(monkeypatch, path.name)
    log = EventLog.open(path)
    assert opened[0] == 1
    opened[0] = 0
    log.append_message(Message.assistant("hi"))
    log.append_message(Message.user("again"))
    assert opened[0] == 2
    assert [m.content for m in EventLog.replay(path).messages()] == ["hello", "hi", "again"]
