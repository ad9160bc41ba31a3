"""Periodic snapshots and the dsh sidecar: a session of any size reopens from its snapshot.

A log that never compacts gets a snapshot every ``snapshot_every`` events; its reopen reads the
snapshot and the tail only (the events before it are read when first asked for, by the log's
marks) and gives exactly the history a full replay gives. A DeepSeek-Harness file gets the same
snapshot as a sidecar (``<log>.ctxlab-snapshot``) that leaves the file's bytes as dsh writes
them; a stale, foreign or corrupt sidecar is ignored (a full replay, the same history), and a
writer killed with SIGKILL while it writes sidecars loses nothing.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.paths import ROOT

from harness.fs.path import WorkspacePath
from harness.messages import Message, ToolCall
from harness.store.eventlog import EventLog, marks
from harness.store.eventlog.snapshot import snapshot_path

TYPES = ("user/message", "assistant/message", "tool/result", "request/header", "session/end-seed")


def clock() -> str:
    return "2026-01-01T00:00:00Z"


def _state(log: EventLog) -> tuple[object, ...]:
    return (
        log.surface,
        log.node_messages(),
        {t: log.latest(t) for t in TYPES},
        log.open_compaction(),
        list(log.events),
    )


def _write(path: Path, turns: int, format: str = "ctxlab", every: int | None = 7) -> None:
    """``turns`` tool-calling turns, a result arriving a turn late (across snapshots)."""
    log = EventLog(path, clock, format, snapshot_every=every)  # type: ignore[arg-type]
    late: str | None = None
    for turn in range(turns):
        log.append_message(Message.user(f"question {turn}"))
        log.append_message(Message.assistant("", [ToolCall(f"c{turn}", "probe", "{}")]))
        if late is not None:  # answers a call made before the latest assistant message
            log.append_message(Message.tool(late, f"late {late}", tool_name="probe"))
        late = f"c{turn}"
        if turn % 5 == 4:
            log.append("request/header", {"messages": [], "tools": [], "n": turn})
    log.append_message(Message.tool(late or "", "last", tool_name="probe"))


def _reference(path: Path, tmp: Path) -> EventLog:
    folder = tmp / "reference"
    folder.mkdir(exist_ok=True)
    copy = folder / path.name
    shutil.copyfile(path, copy)
    return EventLog.open(copy, clock, snapshot_every=None)


def _sidecar(path: Path, format: str) -> Path:
    """The snapshot's file: ``<log>.snapshot``, or dsh's sidecar ``<log>.ctxlab-snapshot``."""
    found = snapshot_path(WorkspacePath.of(path), format).path
    assert found.name == path.name + (".snapshot" if format == "ctxlab" else ".ctxlab-snapshot")
    return found


@pytest.fixture
def small_stride(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mark every 4 events, so a few dozen events span many strides."""
    monkeypatch.setattr(marks, "STRIDE", 4)


@pytest.mark.parametrize("format", ["ctxlab", "dsh"])
def test_a_never_compacted_log_reopens_from_its_periodic_snapshot_as_its_replay(
    tmp_path: Path, format: str, small_stride: None
) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, 30, format)
    assert _sidecar(path, format).exists()
    reference = _reference(path, tmp_path)  # the same file, replayed from its start
    reopened = EventLog.open(path, clock)
    assert reopened.opened_from_snapshot is not None
    assert reopened.opened_from_snapshot > len(reopened.events) - 8  # a tail under K + 1
    read = [e for e in reopened._manager._events if e is not None]
    assert len(read) <= 8 + len(TYPES)  # the tail and the latest events, nothing before
    assert _state(reopened) == _state(reference)
    for log in (reopened, reference):  # a result for an old call cites it alike
        late = log.append_message(Message.tool("c3", "very late", tool_name="probe"))
        assert late.source_event_seqs == (9,)  # the call's event, before the snapshot
    assert _state(reopened) == _state(reference)


def test_a_log_past_the_default_k_reopens_from_a_snapshot_near_its_end(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    log = EventLog(path, clock, durability="os")
    for n in range(3_000):  # no compaction: before, the last snapshot was the one at 500
        log.append_message(Message.user(f"m{n}"))
    reopened = EventLog.open(path, clock)
    assert reopened.opened_from_snapshot is not None and reopened.opened_from_snapshot >= 2_000
    assert reopened.messages() == EventLog.replay(path).messages()


def test_the_sidecar_leaves_the_dsh_file_as_dsh_writes_it(tmp_path: Path) -> None:
    with_sidecar, without = tmp_path / "a" / "s.jsonl", tmp_path / "b" / "s.jsonl"
    for path, every in ((with_sidecar, 3), (without, None)):
        path.parent.mkdir()
        _write(path, 12, "dsh", every)
        EventLog.open(path, clock, snapshot_every=every).append_message(Message.user("more"))
    assert _sidecar(with_sidecar, "dsh").exists() and not _sidecar(without, "dsh").exists()
    assert _no_ids(with_sidecar.read_bytes()) == _no_ids(without.read_bytes())
    assert not (with_sidecar.parent / "s.jsonl.snapshot").exists()  # only the sidecar


def _no_ids(raw: bytes) -> bytes:
    """The file without its random message ids (dsh's ``data.id``, a fresh UUID each)."""
    return re.sub(rb'"id":"[0-9a-f-]{36}"', b'"id":"-"', raw)


def _flip(path: Path) -> None:
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    path.write_bytes(bytes(raw))


def _foreign(path: Path) -> None:
    """The sidecar of another session (same events, another dsh header) put in its place."""
    other = path.parent / "other" / path.name
    other.parent.mkdir()
    _write(other, 12, "dsh", 3)
    shutil.copyfile(_sidecar(other, "dsh"), _sidecar(path, "dsh"))


def _cut(path: Path) -> None:
    """The log cut back to half its lines (a power cut): the sidecar covers more."""
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[: len(lines) // 2]))


@pytest.mark.parametrize("spoil", [_flip, _foreign, _cut], ids=["corrupt", "foreign", "stale"])
def test_a_bad_sidecar_is_ignored_and_the_log_replayed(
    tmp_path: Path, spoil: object, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, 12, "dsh", 3)
    control = tmp_path / "control" / "s.jsonl"
    control.parent.mkdir()
    shutil.copyfile(path, control)
    shutil.copyfile(_sidecar(path, "dsh"), _sidecar(control, "dsh"))
    assert EventLog.open(control, clock).opened_from_snapshot is not None  # a good one is read
    spoiled = _sidecar(path, "dsh") if spoil is _flip else path
    spoil(spoiled)  # type: ignore[operator]
    reference = _reference(path, tmp_path)
    reopened = EventLog.open(path, clock)
    assert reopened.opened_from_snapshot is None
    assert "snapshot ignored" in caplog.text
    assert _state(reopened) == _state(reference)


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from harness.messages import Message
    from harness.store.eventlog import EventLog
    path = Path(sys.argv[1])
    if path.exists():
        log = EventLog.open(path, snapshot_every=1)
    else:
        log = EventLog(path, format="dsh", snapshot_every=1)
    for i in range(100000):  # a periodic sidecar after every event
        log.append_message(Message.user(f"{sys.argv[2]} {i} " + "x" * 2000))
        if i == 20:
            print("writing", flush=True)
    """
)


def test_kill9_while_periodic_sidecars_are_written_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    for round_ in range(3):  # each round resumes the log the previous kill left
        child = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), f"r{round_}"],
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert child.stdout is not None
        assert child.stdout.readline() == b"writing\n"
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        reference = _reference(path, tmp_path)
        reopened = EventLog.open(path, clock, snapshot_every=1)
        assert _state(reopened) == _state(reference)
        words = [m.content.split()[0] for m in reopened.messages()]
        assert words.count(f"r{round_}") >= 21  # every line it wrote is there
        reopened.snapshot()  # the next sidecar removes a killed one's temp
        shutil.rmtree(tmp_path / "reference")
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def _sidecar_results(path: Path) -> list[object]:
    from harness.store.eventlog.snapshot import read_snapshot

    fd = os.open(path, os.O_RDONLY)
    try:
        found = read_snapshot(WorkspacePath.of(path), fd, "dsh")
    finally:
        os.close(fd)
    assert found is not None
    return list(found.codec["results"])


def test_the_dsh_sidecar_does_not_grow_with_the_results_on_the_surface(tmp_path: Path) -> None:
    """The sidecar once held every surface tool result's envelope (a 1M-event session's
    reopen read them all back: 12x a raw read). Only the results since the last snapshot are
    kept; the rest are read back from the file when a rewrite needs one."""
    short, long, replayed = (tmp_path / f"{name}.jsonl" for name in ("short", "long", "old"))
    _write(short, 20, "dsh", every=10)
    _write(long, 200, "dsh", every=10)
    _write(replayed, 200, "dsh", every=None)  # no sidecar yet: the first open replays it all
    EventLog.open(replayed, clock, snapshot_every=10)
    held = [len(_sidecar_results(path)) for path in (short, long, replayed)]
    assert max(held) <= 10, held  # bounded by snapshot_every, not by the 200 results


def test_a_rewrite_of_a_result_before_the_sidecar_is_checked_against_the_file(
    tmp_path: Path, small_stride: None
) -> None:
    """A tool-result rewrite appended after a reopen from the sidecar, of a result the
    sidecar covers, is still held to dsh's rule (only the content may change): the original
    is read back from the file by its marks."""
    import json

    from harness.errors import LogCorruptError

    path = tmp_path / "s.jsonl"
    _write(path, 30, "dsh", every=7)
    lines = [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines()]
    original = next(r for r in lines if r.get("type") == "tool/result")
    forged = dict(original, seq=len(lines) - 1, surfaceOp={
        "op": "replace", "start": original["seq"], "end": original["seq"]})  # fmt: skip
    forged["sourceEventSeqs"] = [original["seq"]]
    forged["data"] = json.loads(json.dumps(original["data"]))
    forged["data"]["message"]["id"] = "another-message-id"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(forged) + "\n")
        handle.write(json.dumps({"type": "turn/end", "seq": len(lines), "time": 0,
                                 "data": {"turn": 99}}) + "\n")  # fmt: skip
    with pytest.raises(LogCorruptError, match="changes more than its content"):
        EventLog.open(path, clock)
