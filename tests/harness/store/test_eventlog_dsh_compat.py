"""The event log folds as DeepSeek-Harness folds the same events (dsh's files read as dsh reads
them): a replace names its span by event seqs looked up on the current surface, a surface whose tool
results do not balance is refused by compaction with a typed error, and the pruner's marker is
dsh's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.compaction.dsh import DshConfig, DshEngine
from harness.errors import SurfaceError, UnbalancedSurfaceError
from harness.messages import Message, ToolCall
from harness.model import ChatRequest
from harness.store.eventlog import Event, EventLog, EventLogHistory, fold
from harness.testing import FunctionModel


def _user(seq: int, text: str, op: Any = "append", sources: tuple[int, ...] = ()) -> Event:
    data = {"message": Message.user(text).to_record()}
    return Event(seq, "user/message", "t", data, op, sources)


def test_the_issue_example_replace_2_3_shadows_seqs_2_and_3() -> None:
    events = [
        _user(0, "u0"),
        Event(1, "compaction/start", "t", {"compaction_id": "c"}),
        _user(2, "u2"),
        _user(3, "u3"),
        _user(4, "u4"),
        _user(5, "summary", {"op": "replace", "start": 2, "end": 3}, (1, 2, 3)),
    ]
    surface = fold(events)
    assert surface.nodes == (0, 5, 4)  # positions 2..3 would have shadowed u3 and u4
    assert surface.replace_generation == 1
    log = EventLog()
    for event in events:
        log.append(
            event.type,
            event.data,
            surface_op=event.surface_op,  # type: ignore[arg-type]
            source_event_seqs=event.source_event_seqs,
        )
    assert [m.content for m in log.messages()] == ["u0", "summary", "u4"]


def test_a_replace_may_start_at_a_higher_seq_than_it_ends(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "s.jsonl")
    for text in ("a", "b", "c"):
        log.append_message(Message.user(text))
    checkpoint = log.replace_span(0, 1, Message.user("summary"))  # seq 3 at the head
    log.append_message(Message.user("d"))
    merged = log.replace_seqs(checkpoint.seq, 2, Message.user("merged"))
    assert dict(merged.surface_op) == {"op": "replace", "start": 3, "end": 2}  # type: ignore[arg-type]
    assert [m.content for m in EventLog.replay(log.path).messages()] == ["merged", "d"]  # type: ignore[arg-type]
    with pytest.raises(SurfaceError, match="is after end seq"):
        log.replace_seqs(4, merged.seq, Message.user("backwards"))
    with pytest.raises(SurfaceError, match="not on the surface"):
        log.replace_seqs(0, 0, Message.user("shadowed already"))


def _unbalanced_log() -> EventLog:
    log = EventLog()
    log.append_message(Message.user("list " + "x" * 400))
    log.append_message(Message.assistant("", [ToolCall("c1", "ls", "{}")]))
    log.append_message(Message.tool("c1", "a.txt " * 50))
    log.append_message(Message.tool("ghost", "a result with no call anywhere"))
    log.append_message(Message.user("next " + "y" * 400))
    log.append_message(Message.assistant("ok"))
    return log


def test_compaction_refuses_a_surface_whose_tool_results_do_not_balance() -> None:
    log = _unbalanced_log()
    before = len(log.events)
    model = FunctionModel(lambda request: "## Primary Request and Intent\n- x")
    with pytest.raises(UnbalancedSurfaceError, match="'ghost'"):
        DshEngine(log, model, DshConfig()).compact_now(ChatRequest(messages=()))
    assert len(log.events) == before and model.requests == []


def test_the_agentscope_history_refuses_it_too() -> None:
    from test_eventlog import _compaction  # the hand-built compaction of that suite

    log = _unbalanced_log()
    history = EventLogHistory(log)
    before = len(log.events)
    with pytest.raises(UnbalancedSurfaceError):
        history.apply_compaction(_compaction(history.messages(), cutoff=2))
    assert len(log.events) == before


def test_a_log_with_positional_replaces_is_refused_with_a_hint_then_migrated(
    tmp_path: Path,
) -> None:
    from harness.errors import LogCorruptError
    from harness.store.eventlog import read_events
    from harness.store.eventlog.migrate import migrate_file

    path = tmp_path / "old.jsonl"
    log = EventLog(path)
    log.append("request/header", {"messages": [], "tools": []})
    for text in ("u1", "u2", "u3"):
        log.append_message(Message.user(text))
    log.replace_span(0, 1, Message.user("summary"))
    seqs_form = path.read_text(encoding="utf-8")
    # The same log as ctxlab 0.1.0 wrote it: the replace named positions 0..1.
    path.write_text(seqs_form.replace('"start":1,"end":2', '"start":0,"end":1'), encoding="utf-8")
    with pytest.raises(LogCorruptError, match=r"harness\.store\.eventlog\.migrate"):
        EventLog.open(path)
    assert migrate_file(path) == 1
    assert path.read_text(encoding="utf-8") == seqs_form
    assert [m.content for m in EventLog.open(path).messages()] == ["summary", "u3"]
    assert migrate_file(path) == 0 and len(read_events(path)) == 6


# --- selection exactly as dsh: counted calls, a corrupt surface raises ------------------------


def _priced(nodes: list[tuple[int, Message]], price: int = 10) -> Any:
    from harness.compaction.dsh.selection import Measurement

    return Measurement(0, tuple((seq, price) for seq, _ in nodes))


def test_selection_itself_raises_on_an_orphan_result_past_its_cut() -> None:
    from harness.compaction.dsh import select_compactable_range

    nodes = list(
        enumerate(
            [
                Message.user("a"),
                Message.assistant("b"),
                Message.user("c"),
                Message.tool("ghost", "a result no call asked for"),
                Message.user("d"),
            ]
        )
    )
    # retain 25 cuts before node 3: the head 0..2 is balanced, the orphan sits in the tail
    with pytest.raises(UnbalancedSurfaceError, match="tool result 3 \\('ghost'\\)"):
        select_compactable_range(nodes, _priced(nodes), 25)


def test_calls_are_counted_as_dsh_counts_them_not_matched_by_id() -> None:
    from harness.compaction.dsh import select_compactable_range

    nodes = list(
        enumerate(
            [
                Message.user("list " + "x" * 400),
                Message.assistant("", [ToolCall("c1", "ls", "{}")]),
                Message.tool("c2", "a result naming another id"),
                Message.user("next " + "y" * 400),
            ]
        )
    )
    found = select_compactable_range(nodes, _priced(nodes), 0)
    assert found is not None and (found.start, found.end) == (0, 2)  # dsh compacts 0..2
    log = EventLog()
    for _, message in nodes:
        log.append_message(message)
    model = FunctionModel(lambda request: "## Primary Request and Intent\n- listed")
    result = DshEngine(log, model, DshConfig()).compact_now(ChatRequest(messages=()))
    assert result is not None and [m.content for m in log.messages()][1] == "next " + "y" * 400
