"""Snapshot + tail ≡ full replay (so opening a long session reads only its tail).

:meth:`EventLog.open` reads the newest valid snapshot and replays only the tail after it; the
reference is the log replayed from the start (``snapshot_every=None`` reads no snapshot). On
random logs (appends, tool calls and results, log-only events, compactions and prunes as
replaces, reopens) with snapshots written every few events, both must give the same events,
surface, messages, latest events, compaction lock and, for the next tool result, the same
citation. A snapshot torn at any byte, or made stale by a log cut short, is ignored. A writer
killed with SIGKILL while it writes snapshots (a real process) leaves a log whose reopen equals
its full replay.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import ROOT

from harness.fs.path import WorkspacePath
from harness.messages import Message, ToolCall
from harness.store.eventlog import EventLog
from harness.store.eventlog.snapshot import snapshot_path

SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
TYPES = ("user/message", "assistant/message", "tool/result", "request/header", "session/end-seed")


def clock() -> str:
    return "2026-01-01T00:00:00Z"


def _snap(path: Path) -> Path:
    return snapshot_path(WorkspacePath.of(path)).path


def _state(log: EventLog) -> tuple[object, ...]:
    return (
        list(log.events),
        log.surface,
        log.node_messages(),
        {t: log.latest(t) for t in TYPES},
        log.open_compaction(),
        log.stale_compaction(),
    )


def _run(data: st.DataObject, path: Path, every: int) -> EventLog:
    """Drive a real file log through random operations; returns the last log."""
    log = EventLog(path, clock, snapshot_every=every)
    log.append_message(Message.user("first"))
    pending: list[str] = []
    for step in range(data.draw(st.integers(5, 60), label="steps")):
        op = data.draw(st.sampled_from(["user", "call", "result", "header", "compact", "prune",
                                        "reopen"]))  # fmt: skip
        nodes = log.node_messages()
        if op == "user":
            log.append_message(Message.user(f"u{step}"))
        elif op == "call":
            call_id = f"c{step}"
            log.append_message(Message.assistant("", [ToolCall(call_id, "probe", "{}")]))
            pending.append(call_id)
        elif op == "result" and pending:
            log.append_message(Message.tool(pending.pop(0), f"r{step}", tool_name="probe"))
        elif op == "header":
            log.append("request/header", {"messages": [], "tools": [], "n": step})
        elif op == "compact" and len(nodes) >= 2:
            end = data.draw(st.integers(0, len(nodes) - 2))
            start = log.append("compaction/start", {"compaction_id": f"k{step}"})
            log.replace_span(0, end, Message.user(f"summary {step}"), extra_sources=(start.seq,))
            log.append("compaction/end", {"compaction_id": f"k{step}"})
        elif op == "prune":
            results = [i for i, (_, m) in enumerate(nodes) if m.role == "tool"]
            if results:
                at = data.draw(st.sampled_from(results))
                old = nodes[at][1]
                pruned = Message.tool(old.tool_call_id or "", "[pruned]", tool_name="probe")
                log.replace_span(at, at, pruned)
        elif op == "reopen":
            log = EventLog.open(path, clock, snapshot_every=every)
    return log


def _reference(path: Path, tmp: Path) -> EventLog:
    """The log replayed from the start, from a copy of the same name (a torn last line is
    moved aside and named in the resume's ``recovered`` notes by the file's name)."""
    folder = tmp / "reference"
    folder.mkdir()
    copy = folder / path.name
    shutil.copyfile(path, copy)
    return EventLog.open(copy, clock, snapshot_every=None)


def _compare(path: Path, tmp: Path) -> EventLog:
    reference = _reference(path, tmp)
    reopened = EventLog.open(path, clock)
    assert _state(reopened) == _state(reference)
    for log in (reopened, reference):  # the next tool result cites its call alike
        calls = [c.id for _, m in log.node_messages() for c in m.tool_calls]
        if calls:
            log.append_message(Message.tool(calls[-1], "late", tool_name="probe"))
    assert _state(reopened) == _state(reference)
    return reopened


@pytest.mark.quick_examples(10)  # costly examples: [full] under -m slow
@SETTINGS
@given(data=st.data(), every=st.integers(1, 8))
def test_snapshot_and_tail_equal_the_full_replay(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, every: int
) -> None:
    tmp = tmp_path_factory.mktemp("log")
    path = tmp / "s.jsonl"
    _run(data, path, every)
    reopened = _compare(path, tmp)
    if _snap(path).exists():
        assert reopened.opened_from_snapshot is not None


@pytest.mark.quick_examples(10)  # costly examples: [full] under -m slow
@SETTINGS
@given(data=st.data(), cut=st.floats(0, 1, exclude_max=True))
def test_a_torn_snapshot_is_ignored(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, cut: float
) -> None:
    tmp = tmp_path_factory.mktemp("log")
    path = tmp / "s.jsonl"
    _run(data, path, 3)
    snap = _snap(path)
    if not snap.exists():
        return
    raw = snap.read_bytes()
    snap.write_bytes(raw[: int(len(raw) * cut)])  # torn at any byte, header included
    reopened = _compare(path, tmp)
    assert reopened.opened_from_snapshot is None


@pytest.mark.quick_examples(10)  # costly examples: [full] under -m slow
@SETTINGS
@given(data=st.data(), flip=st.floats(0, 1, exclude_max=True))
def test_a_snapshot_with_a_flipped_byte_is_ignored(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, flip: float
) -> None:
    tmp = tmp_path_factory.mktemp("log")
    path = tmp / "s.jsonl"
    _run(data, path, 3)
    snap = _snap(path)
    if not snap.exists():
        return
    raw = bytearray(snap.read_bytes())
    at = int(len(raw) * flip)
    raw[at] ^= 0x01
    snap.write_bytes(bytes(raw))
    _compare(path, tmp)  # ignored, or (a flip the checks cannot see) equal all the same


def test_a_stale_snapshot_of_a_longer_log_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    log = EventLog(path, clock, snapshot_every=2)
    for i in range(9):
        log.append_message(Message.user(f"u{i}"))
    log.snapshot()  # of all 9 events
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    path.write_bytes(b"\n".join(lines[:4]) + b"\n")  # the log lost its end (a power cut)
    reopened = _compare(path, tmp_path)
    assert reopened.opened_from_snapshot is None
    assert [m.content for m in reopened.messages()][-1] == "u3"


def test_a_rewritten_log_of_the_same_length_makes_its_snapshot_stale(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    log = EventLog(path, clock, snapshot_every=2)
    for i in range(6):
        log.append_message(Message.user(f"u{i}"))
    log.snapshot()
    path.write_bytes(path.read_bytes().replace(b'"u5"', b'"x5"'))
    reopened = _compare(path, tmp_path)
    assert reopened.opened_from_snapshot is None
    assert reopened.messages()[-1].content == "x5"


def test_a_torn_last_line_after_a_snapshot_reopens_as_its_replay(tmp_path: Path) -> None:
    """A writer killed mid-line (kill -9 at the wrong moment, rare): the reopen drops the torn
    line, notes it in the resume event, and equals the full replay, notes included."""
    path = tmp_path / "s.jsonl"
    log = EventLog(path, clock, snapshot_every=1)
    for i in range(5):
        log.append_message(Message.user(f"u{i}"))
    with path.open("ab") as file:
        file.write(b'{"seq": 5, "type": "user/mess')  # torn: no newline
    reopened = _compare(path, tmp_path)
    assert reopened.opened_from_snapshot is not None
    assert reopened.recovered and "s.jsonl.corrupt" in reopened.recovered[0]


def test_a_reopen_reads_only_the_tail_after_the_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    log = EventLog(path, clock, snapshot_every=1000)
    for i in range(50):
        log.append_message(Message.user(f"u{i}"))
    start = log.append("compaction/start", {"compaction_id": "k"})
    log.replace_span(0, 49, Message.user("summary"), extra_sources=(start.seq,))
    log.append("compaction/end", {"compaction_id": "k"})  # a snapshot at the compaction's end
    log.append_message(Message.user("tail"))
    reopened = EventLog.open(path, clock)
    assert reopened.opened_from_snapshot == 53
    assert [m.content for m in reopened.messages()] == ["summary", "tail"]
    assert reopened.events[3].message == Message.user("u3")  # read on demand, the same


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from harness.messages import Message
    from harness.store.eventlog import EventLog
    path = Path(sys.argv[1])
    log = EventLog.open(path) if path.exists() else EventLog(path)
    for i in range(100000):
        log.append_message(Message.user(f"{sys.argv[2]} {i} " + "x" * 2000))
        log.snapshot()  # one per event: most of the child's time is spent writing them
        if i == 20:
            print("writing", flush=True)
    """
)


@pytest.mark.parametrize(
    "kill", [0, *(pytest.param(k, marks=pytest.mark.slow) for k in range(1, 4))]
)  # three more kill points in the slow run
def test_kill9_while_snapshots_are_written_leaves_a_log_that_reopens_as_its_replay(
    tmp_path: Path, kill: int
) -> None:
    path = tmp_path / "s.jsonl"
    for round_ in range(3):  # each round resumes the log the previous kill left
        child = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), f"r{kill}.{round_}"],
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert child.stdout is not None
        assert child.stdout.readline() == b"writing\n"  # it is writing a snapshot per event
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        _compare(path, tmp_path).snapshot()  # the next snapshot removes a killed one's temp
        shutil.rmtree(tmp_path / "reference")
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_snapshot_event_nested_too_deep_is_ignored(tmp_path: Path) -> None:
    import hashlib

    path = tmp_path / "s.jsonl"
    log = EventLog(path, clock, snapshot_every=2)
    for i in range(6):
        log.append_message(Message.user(f"u{i}"))
    log.snapshot()
    snap = _snap(path)
    content = snap.read_bytes().split(b"\n", 1)[1]
    header, _replaced, rest = content.split(b"\n", 2)
    deep = b"[" * 100_000 + b"]" * 100_000  # checksummed as it should be: only its depth is bad
    content = b"\n".join([header, deep, rest])
    snap.write_bytes(hashlib.sha256(content).hexdigest().encode() + b"\n" + content)
    reopened = _compare(path, tmp_path)  # no RecursionError: the log is replayed instead
    assert reopened.opened_from_snapshot is None
    assert reopened.messages()[-1].content == "u5"
