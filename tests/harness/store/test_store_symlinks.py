"""No session store read or write ever follows a symlink, even one swapped in mid-run (the
stores' part of keeping every file inside the workspace).

Two kinds of test:

* **mid-run** — a store is opened on real folders, then ``events/``, ``state/``, ``sessions/``
  or ``locks/`` is replaced by a symlink to an outside folder holding decoy files; the next
  append, save, load, read or lock is refused (PathEscapeError) and the outside folder is
  unchanged. On main each of these wrote or read through the link.
* **races** — another process exchanges the folder and a symlink to the outside folder in a
  loop (``renameat2(RENAME_EXCHANGE)``: at every instant the name is one or the other) while
  the store appends, saves, reads and locks; we count what came from or went to the outside
  folder (must be 0) and check the race really ran (operations both succeeded and were
  refused).
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.compaction.manual import ManualCompaction
from harness.compaction.manual.lock import session_lock
from harness.errors import CtxlabError, ManualCompactionError, PathEscapeError
from harness.fs.path import WorkspacePath
from harness.fs.root import SafeRoot
from harness.memory import MemoryWorkspace
from harness.messages import Message
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.history import StateHistory
from harness.store.sessions import open_history
from harness.store.statefile import AgentState, JsonStateStore, Transcript
from harness.testing import FunctionModel

SECRET = "OUTSIDE-SECRET-4711"
RACE_HITS = 50
"""Operations that must succeed, and operations that must be refused, while the folder is being
exchanged, before a race ends: both ways hit, many times over."""
RACE_DEADLINE = 60.0
"""Seconds after which a race that has not hit both ways that often stops (and fails)."""


def decoys(folder: Path) -> None:
    """Outside files a store would read if it followed the link: each holds SECRET."""
    message = {"role": "user", "content": SECRET}
    event = {"seq": 0, "at": "x", "type": "user/message", "data": {"message": message}}
    event |= {"surface_op": "append", "source_event_seqs": []}
    (folder / "s1.jsonl").write_text(json.dumps(event) + "\n")
    (folder / "s1.json").write_text(
        json.dumps({"format": 2, "session_id": "s1", "epoch": 1, "context": [message]}) + "\n"
    )
    (folder / "s1.journal.jsonl").write_text(json.dumps({"epoch": 1, "message": message}) + "\n")
    (folder / "s1.lock").write_text('{"pid": 1}\n')
    (folder / "memory.lock").write_text("")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    decoys(folder)
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def swap_for_link(folder: Path, outside: Path) -> None:
    """Replace ``folder`` by a symlink to ``outside`` (the real one is kept beside it)."""
    folder.rename(folder.with_name(folder.name + "-real"))
    os.symlink(outside, folder)


def texts(messages: list[Message]) -> str:
    return " ".join(m.content for m in messages)


# --- mid-run: a folder replaced by a symlink after the store was opened ---------------------


def test_an_event_log_refuses_an_events_folder_swapped_mid_run(
    tmp_path: Path, outside: Path
) -> None:
    fs = SafeRoot(tmp_path / "u1")
    history = open_history(fs, "s1", "eventlog")
    assert isinstance(history, EventLogHistory)
    history.append([Message.user("inside")])
    before = snapshot(outside)
    swap_for_link(fs.base / "events", outside)

    with pytest.raises(PathEscapeError):
        history.append([Message.user("after the swap")])
    assert history.log.sync() == 0  # the link reads as no file: nothing is folded in
    with pytest.raises(PathEscapeError):
        EventLog.open(WorkspacePath(fs, "events/s1.jsonl"))
    with pytest.raises(PathEscapeError):
        EventLog.replay(WorkspacePath(fs, "events/s1.jsonl"))
    assert snapshot(outside) == before
    assert texts(history.messages()) == "inside"


def test_a_state_store_refuses_a_state_folder_swapped_mid_run(
    tmp_path: Path, outside: Path
) -> None:
    fs = SafeRoot(tmp_path / "u1")
    history = open_history(fs, "s1", "state")
    assert isinstance(history, StateHistory) and history.state_store is not None
    history.append([Message.user("inside")])
    before = snapshot(outside)
    swap_for_link(fs.base / "state", outside)

    with pytest.raises(PathEscapeError):  # the journal append
        history.state_store.append(history.state, [Message.user("after the swap")])
    with pytest.raises(PathEscapeError):  # the checkpoint (temp file + rename)
        history.state_store.save(history.state)
    with pytest.raises(PathEscapeError):  # the checkpoint and journal reads
        JsonStateStore(WorkspacePath(fs, "state")).load("s1")
    assert snapshot(outside) == before


def test_a_transcript_refuses_a_sessions_folder_swapped_mid_run(
    tmp_path: Path, outside: Path
) -> None:
    fs = SafeRoot(tmp_path / "u1")
    transcript = Transcript(WorkspacePath(fs, "sessions/s1.jsonl"))
    transcript.append_messages([Message.user("inside")])
    before = snapshot(outside)
    swap_for_link(fs.base / "sessions", outside)

    with pytest.raises(PathEscapeError):
        transcript.append_messages([Message.user("after the swap")])
    with pytest.raises(PathEscapeError):
        transcript.numbered_messages()
    assert snapshot(outside) == before


def test_lock_files_are_never_taken_through_a_symlinked_locks_folder(
    tmp_path: Path, outside: Path
) -> None:
    workspace = MemoryWorkspace(tmp_path, "u1")
    with workspace.memory_lock():
        pass
    before = snapshot(outside)
    swap_for_link(workspace.base / "locks", outside)

    with pytest.raises(PathEscapeError), workspace.memory_lock():
        pass
    with pytest.raises(PathEscapeError), workspace.consolidation_lock():
        pass
    with (
        pytest.raises(PathEscapeError),
        session_lock(WorkspacePath(workspace.fs, "locks/s1.lock"), "compact"),
    ):
        pass
    manual = ManualCompaction(workspace.base, "s1", FunctionModel(lambda r: "summary"))
    with pytest.raises(ManualCompactionError):
        manual.compact()
    assert snapshot(outside) == before  # no lock taken, truncated, rewritten or unlinked


# --- races: a folder exchanged with a symlink in a loop by another process -----------------

SWAPPER = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
folder, link, stop = (p.encode() for p in sys.argv[1:4])
while not os.path.exists(stop):
    if libc.renameat2(-100, folder, -100, link, 2) != 0:  # AT_FDCWD, RENAME_EXCHANGE
        sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
"""


def _exchange(a: Path, b: Path) -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    return bool(libc.renameat2(-100, bytes(a), -100, bytes(b), 2) == 0)  # RENAME_EXCHANGE


def _has_exchange(tmp_path: Path) -> bool:
    probe = tmp_path / "probe"
    probe.mkdir()
    os.symlink(tmp_path, tmp_path / "probe-link")
    done = _exchange(probe, tmp_path / "probe-link")
    for name in ("probe", "probe-link"):
        path = tmp_path / name
        path.unlink() if path.is_symlink() else path.rmdir()
    return done


class Race:
    """Runs ``operation`` in a loop while ``folder`` is exchanged with a symlink to
    ``outside``; an operation returns the text it read (or "" for a write)."""

    def __init__(self, tmp_path: Path, folder: Path, outside: Path) -> None:
        if not hasattr(ctypes.CDLL(None), "renameat2") or not _has_exchange(tmp_path):
            pytest.skip("renameat2(RENAME_EXCHANGE) is not available here")
        folder.mkdir(parents=True, exist_ok=True)
        self.folder, self.outside = folder, outside
        self.link = folder.with_name(folder.name + "-link")
        os.symlink(outside, self.link)
        self.stop = tmp_path / "stop"
        self.counts: Counter[str] = Counter()

    def run(self, operation: Callable[[], str]) -> Counter[str]:
        before = snapshot(self.outside)
        args = [str(self.folder), str(self.link), str(self.stop)]
        swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, *args])
        try:
            # Until the race has hit both ways often enough (the event), not for a fixed time;
            # the deadline only ends a race that never runs (the assertion then says so).
            deadline = time.monotonic() + RACE_DEADLINE
            while min(self.counts["ok"], self.counts["refused"]) < RACE_HITS:
                if time.monotonic() > deadline:
                    break
                self._once(operation)
        finally:
            self.stop.touch()
            assert swapper.wait(timeout=30) == 0, "the swapper failed"
            if self.folder.is_symlink():  # it stopped mid-swap: put the real folder back
                _exchange(self.folder, self.link)
        after = snapshot(self.outside)
        self.counts["outside writes"] = sum(
            before.get(name) != after.get(name) for name in before.keys() | after.keys()
        )
        return self.counts

    def _once(self, operation: Callable[[], str]) -> None:
        try:
            text = operation()
        except (CtxlabError, OSError):  # refused (a symlink), or a file the swap hid
            self.counts["refused"] += 1
            return
        self.counts["outside reads" if SECRET in text else "ok"] += 1


def assert_never_outside(counts: Counter[str]) -> None:
    print(dict(counts))  # shown with -s: how often the race hit
    assert counts["outside reads"] == 0 and counts["outside writes"] == 0, counts
    hits = min(counts["ok"], counts["refused"])
    assert hits >= RACE_HITS, f"the race did not run both ways {RACE_HITS} times: {counts}"


def test_event_log_appends_and_reads_never_leave_the_workspace_in_a_race(
    tmp_path: Path, outside: Path
) -> None:
    fs = SafeRoot(tmp_path / "u1")
    file = WorkspacePath(fs, "events/s1.jsonl")
    logs = [EventLog(file)]
    acked = []

    def operation() -> str:
        if logs[0].write_error is not None:  # a failed write: reopen, as the log asks
            logs[0] = EventLog.open(file)
        if len(acked) % 3 == 2:
            return texts(EventLog.replay(file).messages())
        text = f"m{len(acked)}"
        logs[0].append_message(Message.user(text))
        acked.append(text)
        return texts(logs[0].messages())

    race = Race(tmp_path, fs.base / "events", outside)
    assert_never_outside(race.run(operation))
    assert [m.content for m in EventLog.open(file).messages()] == acked  # nothing lost


def test_state_store_journal_checkpoint_and_loads_never_leave_the_workspace_in_a_race(
    tmp_path: Path, outside: Path
) -> None:
    fs = SafeRoot(tmp_path / "u1")
    store = JsonStateStore(WorkspacePath(fs, "state"))
    state = AgentState("s1")
    turn = iter(range(10**9))

    def operation() -> str:
        n = next(turn)
        if n % 3 == 2:
            return texts(JsonStateStore(WorkspacePath(fs, "state")).load("s1").context)
        message = Message.user(f"m{n}")
        state.context.append(message)
        if n % 5 == 0:
            store.save(state)
        else:
            store.append(state, [message])
        return ""

    race = Race(tmp_path, fs.base / "state", outside)
    assert_never_outside(race.run(operation))


def test_transcript_appends_and_reads_never_leave_the_workspace_in_a_race(
    tmp_path: Path, outside: Path
) -> None:
    fs = SafeRoot(tmp_path / "u1")
    transcript = Transcript(WorkspacePath(fs, "sessions/s1.jsonl"))
    turn = iter(range(10**9))

    def operation() -> str:
        if next(turn) % 2:
            return texts([m for _, m in transcript.numbered_messages()])
        transcript.append_messages([Message.user("inside")])
        return ""

    race = Race(tmp_path, fs.base / "sessions", outside)
    assert_never_outside(race.run(operation))


def test_lock_files_are_never_taken_outside_in_a_race(tmp_path: Path, outside: Path) -> None:
    workspace = MemoryWorkspace(tmp_path, "u1")
    lock = WorkspacePath(workspace.fs, "locks/s1.lock")
    turn = iter(range(10**9))

    def operation() -> str:
        if next(turn) % 2:
            with workspace.memory_lock():
                return ""
        with session_lock(lock, "compact"):
            return ""

    race = Race(tmp_path, workspace.base / "locks", outside)
    assert_never_outside(race.run(operation))
