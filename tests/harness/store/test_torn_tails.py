"""Every append-only file cuts a torn tail before appending, and never deletes it: the event log,
the state store's journal and the session transcript.

Each test plants the fault in a real file (bytes a crash left without a newline, or one bad
byte in the last complete line), reopens the store and appends again: the next line must be
readable, and the bytes that were cut must be in ``<file>.corrupt``, as they were.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from harness.fs.path import WorkspacePath
from harness.messages import Message
from harness.store.eventlog import EventLog, read_events
from harness.store.history import StateHistory
from harness.store.statefile import AgentState, JsonStateStore, Transcript
from harness.store.torn import corrupt_copy


def _corrupt(path: Path) -> bytes:
    return corrupt_copy(WorkspacePath.of(path)).read_bytes()


def _flip_a_byte_of_the_last_line(path: Path) -> bytes:
    raw = path.read_bytes()
    start = raw.rstrip(b"\n").rfind(b"\n") + 1
    last = raw[start:]
    bad = last.replace(b'"', b"\xff", 1)  # one bad byte: neither UTF-8 nor JSON any more
    path.write_bytes(raw[:start] + bad)
    return bad


def _log(path: Path, n: int) -> EventLog:
    log = EventLog(path)
    for i in range(n):
        log.append_message(Message.user(f"acknowledged {i}"))
    return log


def test_one_bad_byte_in_the_last_event_line_is_moved_aside_not_deleted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.jsonl"
    _log(path, 4)
    bad = _flip_a_byte_of_the_last_line(path)
    with caplog.at_level(logging.WARNING, logger="harness.store.eventlog"):
        reopened = EventLog.open(path)
    assert "unreadable last line 4" in reopened.recovered[0]
    assert ".corrupt" in caplog.text
    kept = _corrupt(path)
    assert kept.startswith(b"# ") and bad in kept  # the acknowledged event's bytes, as they were
    assert [m.content for m in reopened.messages()] == [f"acknowledged {i}" for i in range(3)]
    reopened.append_message(Message.user("next"))
    assert read_events(path)[-1].message == Message.user("next")


def test_a_torn_event_line_is_moved_aside_before_the_next_append(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _log(path, 2)
    with path.open("ab") as handle:
        handle.write(b'{"seq":2,"type":"user/mess')
    reopened = EventLog.open(path)
    reopened.append_message(Message.user("next"))
    assert b'{"seq":2,"type":"user/mess' in _corrupt(path)
    assert read_events(path)[-1].message == Message.user("next")


def test_a_torn_journal_line_is_moved_aside(tmp_path: Path) -> None:
    store = JsonStateStore(tmp_path / "state")
    state = AgentState("s", [Message.user("checkpointed")])
    store.save(state)
    state.context.append(Message.user("journaled"))
    store.append(state, [state.context[-1]])
    journal = store.journal_path("s")
    with journal.open("ab") as handle:
        handle.write(b'{"epoch": 1, "mess')
    loaded = store.load("s")
    assert [m.content for m in loaded.context] == ["checkpointed", "journaled"]
    assert b'{"epoch": 1, "mess' in _corrupt(journal)
    loaded.context.append(Message.user("next"))
    store.append(loaded, [loaded.context[-1]])
    assert [m.content for m in store.load("s").context] == ["checkpointed", "journaled", "next"]


@pytest.mark.parametrize("fault", ["torn", "bad byte"])
def test_the_next_transcript_message_is_readable_after_a_damaged_last_line(
    tmp_path: Path, fault: str
) -> None:
    path = tmp_path / "sessions" / "s.jsonl"
    first = Transcript(path)
    first.append_messages([Message.user("one"), Message.user("two")])
    if fault == "torn":
        with path.open("ab") as handle:
            handle.write(b'{"seq": 2, "at": "x", "type": "mess')
        damaged = b'{"seq": 2, "at": "x", "type": "mess'
    else:
        damaged = _flip_a_byte_of_the_last_line(path)
    again = Transcript(path)
    again.append_messages([Message.user("three")])
    contents = [m.content for _, m in again.numbered_messages()]
    assert contents[-1] == "three"  # appended onto torn bytes, it was unreadable
    assert damaged in _corrupt(path)
    lines = path.read_bytes().decode("utf-8").splitlines()
    assert all(json.loads(line) for line in lines)  # every line left in the file parses
    assert json.loads(lines[-1])["seq"] == len(lines) - 1


def test_a_state_session_resumes_over_a_torn_transcript(tmp_path: Path) -> None:
    transcript = tmp_path / "sessions" / "s.jsonl"
    history = StateHistory("s", JsonStateStore(tmp_path / "state"), Transcript(transcript))
    history.append([Message.user("before the crash")])
    with transcript.open("ab") as handle:
        handle.write(b'{"seq": 1, "at"')
    resumed = StateHistory("s", JsonStateStore(tmp_path / "state"), Transcript(transcript))
    resumed.append([Message.user("after the crash")])
    assert [o.message.content for o in resumed.originals()] == [
        "before the crash",
        "after the crash",
    ]


def test_nothing_is_moved_aside_when_nothing_is_torn(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    _log(path, 3)
    EventLog.open(path).append_message(Message.user("next"))
    Transcript(tmp_path / "t.jsonl").append_messages([Message.user("x")])
    Transcript(tmp_path / "t.jsonl").append_messages([Message.user("y")])
    assert not list(tmp_path.glob("*.corrupt"))
