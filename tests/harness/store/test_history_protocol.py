"""Both session stores implement the one History protocol completely.

The same contract runs on a state-file session and on an event-log session, built by the one
function that picks a store (:func:`harness.store.sessions.open_history`): append, replace
(a compaction), record_prefix, originals (the compacted-away messages stay findable, each at
the file line that holds it) and search. ``session_search`` goes through it, so it finds
event-log sessions too (on main it parsed the transcript format itself and found none).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.sessions import code_word_session

from harness.compaction.agentscope import CompactionConfig, Compactor, resolve_thresholds
from harness.compaction.manual import ManualCompaction
from harness.fs.root import SafeRoot
from harness.memory import MemoryTools, MemoryWorkspace
from harness.messages import Message, ToolCall
from harness.model import ChatRequest
from harness.store.eventlog import EventLogHistory
from harness.store.history import History, StateHistory
from harness.store.protocol import search_histories
from harness.store.sessions import open_history, open_saved, saved_histories
from harness.testing import FunctionModel
from harness.tools import ToolBox

STORES = ["state", "eventlog"]


def summariser(request: ChatRequest) -> str:
    return "summary of the early talk"


def compact(history: History, keep: int = 2) -> None:
    """A forced AgentScope compaction that records its prefix through the protocol."""
    config = CompactionConfig(
        trigger_messages=keep + 1,
        trigger_tokens=None,
        keep_messages=keep,
        keep_tokens=0,
        prune=None,
        flush_before_compact=False,
    )
    model = FunctionModel(summariser)
    compactor = Compactor(
        config,
        resolve_thresholds(config, model.model_name),
        model,
    )
    messages = history.messages()
    compaction = compactor.force(messages)
    assert compaction is not None
    history.record_prefix(messages[: compaction.event.cut])  # step 5, as the engine runs it
    history.apply_compaction(compaction)


def talk() -> list[Message]:
    return [
        Message.user("the harbour code is 夜莺 nightingale"),
        Message.assistant("noted"),
        Message.user("ship the crates on Tuesday"),
        Message.assistant("will do"),
        Message.user("what day again?"),
        Message.assistant("Tuesday"),
    ]


def message_at(base: Path, file: str, number: int) -> Message:
    """The message on line ``number`` of a transcript or an event log, read as JSON."""
    record = json.loads((base / file).read_text(encoding="utf-8").split("\n")[number - 1])
    return Message.from_record(record.get("message") or record["data"]["message"])


@pytest.mark.parametrize("store", STORES)
def test_both_stores_keep_every_original_through_a_compaction(tmp_path: Path, store: str) -> None:
    fs = SafeRoot(tmp_path / "u1")
    history = open_history(fs, "s1", store)
    assert isinstance(history, History)
    history.append(talk())
    compact(history)

    assert [m.content for m in history.messages()][1:] == ["what day again?", "Tuesday"]
    originals = history.originals()
    contents = [o.message.content for o in originals]
    for message in talk():  # record_prefix kept the compacted prefix: nothing is lost
        assert message.content in contents
    assert "summary of the early talk" in "".join(contents)
    for original in originals:  # each cites the file line that holds it
        assert message_at(fs.base, original.file, original.line) == original.message
    expected_file = "events/s1.jsonl" if store == "eventlog" else "sessions/s1.jsonl"
    assert {o.file for o in originals} == {expected_file}

    hits = history.search("夜莺")
    assert [h.text for h in hits][:1] == ["[USER] the harbour code is 夜莺 nightingale"]
    assert hits[0].file == expected_file
    assert history.search("zebra") == []


@pytest.mark.parametrize("store", STORES)
def test_a_saved_session_reopens_in_its_own_store_by_one_function(
    tmp_path: Path, store: str
) -> None:
    fs = SafeRoot(tmp_path / "u1")
    assert open_saved(fs, "s1") is None
    open_history(fs, "s1", store).append(talk())
    reopened = open_saved(fs, "s1")
    kind = EventLogHistory if store == "eventlog" else StateHistory
    assert isinstance(reopened, kind)
    assert reopened.messages() == talk()


def test_search_ranks_the_sessions_of_both_stores_together(tmp_path: Path) -> None:
    fs = SafeRoot(tmp_path / "u1")
    open_history(fs, "old", "state").append([Message.user("the crane is red")])
    open_history(fs, "new", "eventlog").append([Message.user("the crane is blue")])
    hits = search_histories(saved_histories(fs), "crane")
    assert sorted((h.file, h.text) for h in hits) == [
        ("events/new.jsonl", "[USER] the crane is blue"),
        ("sessions/old.jsonl", "[USER] the crane is red"),
    ]


def test_reading_sessions_for_search_changes_no_file(tmp_path: Path) -> None:
    fs = SafeRoot(tmp_path / "u1")
    open_history(fs, "s1", "eventlog").append(talk())
    open_history(fs, "s2", "state").append(talk())
    with (fs.base / "events/s1.jsonl").open("ab") as handle:
        handle.write(b'{"seq": 99, "ty')  # a torn tail another writer may still be finishing
    before = {p: p.read_bytes() for p in fs.base.rglob("*") if p.is_file()}
    assert len(search_histories(saved_histories(fs), "Tuesday")) >= 2
    assert {p: p.read_bytes() for p in fs.base.rglob("*") if p.is_file()} == before


def test_a_damaged_event_log_is_left_out_of_search_not_fatal(tmp_path: Path) -> None:
    fs = SafeRoot(tmp_path / "u1")
    open_history(fs, "good", "eventlog").append([Message.user("Tuesday crates")])
    bad = fs.base / "events" / "bad.jsonl"
    bad.write_text("not json\n" + (fs.base / "events/good.jsonl").read_text())
    hits = search_histories(saved_histories(fs), "Tuesday")
    assert [h.file for h in hits] == ["events/good.jsonl"]


# --- session_search through the protocol (fails on main: event logs were invisible) ----------


@pytest.mark.parametrize("store", STORES)
def test_session_search_finds_a_session_of_either_store(tmp_path: Path, store: str) -> None:
    agent = code_word_session(tmp_path, store)
    toolbox = ToolBox(MemoryTools(agent.workspace).tools())
    result = toolbox.run(ToolCall("c1", "session_search", json.dumps({"query": "夜莺"})))
    first = result.splitlines()[0]
    file = "events/chat1.jsonl" if store == "eventlog" else "sessions/chat1.jsonl"
    assert first.startswith(f"[{file}#"), result
    assert first.endswith("] [USER] 记住暗号是夜莺，只回复收到")
    number = int(first.split("#")[1].split("]")[0])
    message = message_at(agent.workspace.base, file, number)
    assert message.content == "记住暗号是夜莺，只回复收到"


def test_session_search_finds_what_a_manual_compaction_shadowed_on_an_event_log(
    tmp_path: Path,
) -> None:
    workspace = MemoryWorkspace(tmp_path, "u1")
    open_history(workspace.fs, "s1", "eventlog").append(talk())
    ManualCompaction(workspace.base, "s1", FunctionModel(summariser)).compact()
    reopened = open_saved(workspace.fs, "s1")
    assert reopened is not None
    assert "nightingale" not in " ".join(m.content for m in reopened.messages())
    result = MemoryTools(workspace).session_search("nightingale")
    assert "[events/s1.jsonl#1] [USER] the harbour code is 夜莺 nightingale" in result
