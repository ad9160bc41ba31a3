"""Two real processes on one event log: appends are serialised by the OS file lock, each
re-checks the tail under it, and a reader replaying meanwhile never mistakes a half-written
last line for corruption."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from pathlib import Path

from harness.store.eventlog import EventLog, read_events

WRITER = """
import sys
from pathlib import Path
from harness.store.eventlog import EventLog
from harness.messages import Message

path, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
log = EventLog.open(path)
for n in range(count):
    log.append_message(Message.user(f"{name} {n} " + "x" * (n % 7) * 300))
"""

READER = """
import sys, time
from pathlib import Path
from harness.store.eventlog import EventLog

path, stop = Path(sys.argv[1]), Path(sys.argv[2])
reads = 0
while not stop.exists():
    if path.exists():
        EventLog.replay(path)  # raises LogCorruptError on a line it cannot read
        reads += 1
print(reads)
"""


def _spawn(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_writer_processes_and_a_reader_never_corrupt_the_log(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    EventLog(path).append("session/start", {"session_id": "s"})
    stop = tmp_path / "stop"
    reader = _spawn(READER, str(path), str(stop))
    writers = [_spawn(WRITER, str(path), name, "150") for name in ("a", "b")]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    stop.touch()
    out, err = reader.communicate(timeout=60)
    assert reader.returncode == 0, err
    assert int(out) > 0
    events = read_events(path)
    assert [e.seq for e in events] == list(range(len(events)))  # no duplicate seq
    texts = [m.content.split(" ")[:2] for m in EventLog.open(path).messages()]
    for name in ("a", "b"):
        assert [int(n) for who, n in texts if who == name] == list(range(150))


def test_an_append_after_another_process_wrote_continues_its_seqs(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    log = EventLog(path)
    log.append("session/start", {})
    writer = _spawn(WRITER, str(path), "other", "3")
    assert writer.wait(timeout=60) == 0
    time.sleep(0)  # the other process has exited: its events are on disk
    from harness.messages import Message

    event = log.append_message(Message.user("mine"))
    assert event.seq == 5  # start, end-seed, three of the other's, then this one
    assert [m.content.split(" ")[0] for m in log.messages()] == ["other"] * 3 + ["mine"]


def test_manual_compaction_beside_an_appending_process_keeps_the_log_whole(
    tmp_path: Path,
) -> None:
    from harness.compaction.dsh import DshConfig, DshEngine
    from harness.errors import CtxlabError
    from harness.messages import Message
    from harness.model import ChatRequest
    from harness.testing import FunctionModel

    path = tmp_path / "s.jsonl"
    seed = EventLog(path)
    for n in range(12):
        seed.append_message(Message.user(f"seed {n} " + "s" * 400))
        seed.append_message(Message.assistant(f"ok {n}"))
    writer = _spawn(WRITER, str(path), "agent", "120")
    model = FunctionModel(lambda request: "## Primary Request and Intent\n- seed")
    compacted = 0
    while writer.poll() is None:
        log = EventLog.open(path)
        with contextlib.suppress(CtxlabError):  # refused (the surface moved): never a broken log
            compacted += DshEngine(log, model, DshConfig()).compact_now(ChatRequest(())) is not None
    assert writer.returncode == 0, writer.stderr.read() if writer.stderr else ""
    events = read_events(path)
    assert [e.seq for e in events] == list(range(len(events)))
    final = EventLog.open(path)  # folds: every replace found its seqs on the surface
    assert final.messages() == EventLog.replay(path).messages()
    originals = [e.message for e in events if e.type == "user/message" and e.surface_op == "append"]
    texts = [m.content.split(" ")[:2] for m in originals if m is not None]
    assert [int(n) for who, n in texts if who == "agent"] == list(range(120))  # none lost
    assert compacted >= 1
