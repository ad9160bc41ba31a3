"""What a reopen reads for its first request: each line once, and no event before the snapshot.

A log reopened from its snapshot folds the tail's events; the surface's messages before the
snapshot are read straight from their lines when first asked for
(:mod:`harness.store.eventlog.line_messages`), each line once, no ``Event`` built for them (the
reopen of a never-compacted session used to build and freeze one event per line, then copy each
message out of it). Counted here, not timed; what is read equals a full replay, and a bad line
before the snapshot is still refused.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.errors import LogCorruptError, SurfaceError
from harness.messages import Message, ToolCall
from harness.store.eventlog import EventLog, events, line_messages, marks, prefix
from harness.store.eventlog.events import Event
from harness.store.eventlog.marks import Marks
from harness.store.eventlog.surface import SurfaceManager

TURNS = 60


def clock() -> str:
    return "2026-01-01T00:00:00Z"


def _write(path: Path, format: str = "ctxlab") -> None:
    """``TURNS`` tool-calling turns, never compacted, a snapshot every 50 events."""
    log = EventLog(path, clock, format, durability="os", snapshot_every=50)  # type: ignore[arg-type]
    for turn in range(TURNS):
        call = ToolCall(f"c{turn}", "lookup", f'{{"n": {turn}}}')
        log.append_message(Message.user(f"question {turn}"))
        log.append_message(Message.assistant("", [call]))
        log.append_message(Message.tool(call.id, f"result {turn}", tool_name="lookup"))
        log.append_message(Message.assistant(f"answer {turn}"))


@pytest.fixture
def small_stride(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mark every 16 events, so the prefix spans many strides."""
    monkeypatch.setattr(marks, "STRIDE", 16)


def _counting(monkeypatch: pytest.MonkeyPatch) -> tuple[Counter[str], Counter[int]]:
    """Counts of the events built (``built["events"]``) and of each seq's line read for its
    message alone (``lines[seq]``)."""
    built: Counter[str] = Counter()
    lines: Counter[int] = Counter()
    settle, read = events._settle, line_messages.message_of_line

    def counted_settle(*args: Any) -> None:
        built["events"] += 1
        settle(*args)

    def counted_read(path: Path, seq: int, line: bytes) -> Message | None:
        lines[seq] += 1
        return read(path, seq, line)

    monkeypatch.setattr(events, "_settle", counted_settle)
    monkeypatch.setattr(prefix, "message_of_line", counted_read)
    return built, lines


def test_the_first_request_reads_each_line_once_and_builds_no_event_before_the_snapshot(
    tmp_path: Path, small_stride: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    _write(path)
    replayed = EventLog.replay(path).messages()
    built, lines = _counting(monkeypatch)
    log = EventLog.open(path, clock, durability="os")
    covered = log.opened_from_snapshot
    assert covered is not None and covered >= 4 * TURNS - 50
    tail = 4 * TURNS - covered
    assert built["events"] <= tail + 1 + 4  # the tail, the end-seed, the latest of each type
    known = {seq for seq in range(covered) if log._manager._events[seq] is not None}
    assert len(known) <= 5  # the snapshot's latest event of each type
    built.clear()
    assert log.messages() == replayed
    assert built["events"] == 0  # no event built for the messages before the snapshot
    assert set(lines) == set(range(covered)) - known
    assert set(lines.values()) == {1}
    assert log.messages() == replayed and set(lines.values()) == {1}  # read once, then kept
    assert list(log.events) == list(EventLog.replay(path).events)[: len(log.events)]


def test_a_dsh_file_reads_its_messages_as_its_replay(tmp_path: Path, small_stride: None) -> None:
    path = tmp_path / "s.jsonl"
    _write(path, "dsh")
    replayed = EventLog.replay(path).messages()
    log = EventLog.open(path, clock, durability="os")
    assert log.opened_from_snapshot is not None
    assert log.messages() == replayed


def test_a_bad_line_before_the_snapshot_is_refused(tmp_path: Path, small_stride: None) -> None:
    path = tmp_path / "s.jsonl"
    _write(path)
    raw = path.read_bytes()
    assert raw.count(b'{"seq":21,') == 1
    path.write_bytes(raw.replace(b'{"seq":21,', b'{"seq":12,'))  # same length: snapshot kept
    log = EventLog.open(path, clock, durability="os")
    assert log.opened_from_snapshot is not None
    open_files = len(os.listdir("/proc/self/fd"))
    with pytest.raises(LogCorruptError, match=r":22: event seq 12, expected 21") as raised:
        log.messages()
    assert len(os.listdir("/proc/self/fd")) == open_files and raised  # the read closed its file


@given(
    st.lists(st.integers(1, 9), min_size=1, max_size=8),
    st.lists(st.integers(0, 80), max_size=30),
)
def test_blocks_group_seqs_as_block_does(gaps: list[int], seqs: list[int]) -> None:
    firsts = [0]
    for gap in gaps[1:]:
        firsts.append(firsts[-1] + gap)
    found = Marks()
    found.seqs, found.offsets = firsts, [10 * s for s in firsts]  # as a dsh file's chunk rows
    expected: dict[tuple[int, int, int], list[int]] = {}
    for seq in seqs:
        expected.setdefault(found.block(seq, 1_000), []).append(seq)
    assert found.blocks(seqs, 1_000) == expected


@pytest.mark.parametrize(
    ("nodes", "known"), [([0, 5], ()), ([-1, 2], ()), ([1, 2], (5,)), ([], (-1,))]
)
def test_a_restore_refuses_seqs_outside_the_snapshot(nodes: list[int], known: tuple[int]) -> None:
    """The range check over the nodes (by their min and max) refuses what the check of each
    seq refused: a node or a known event at or past ``count``, or below 0."""
    manager = SurfaceManager()
    events_known = {seq: Event(0, "session/start", "t", {}) for seq in known}
    with pytest.raises(SurfaceError, match="outside its 5"):
        manager.restore(5, nodes, 0, events_known, _NoPrefix())
    SurfaceManager().restore(5, [0, 4], 0, {}, _NoPrefix())  # inside: fine


class _NoPrefix:
    def load(self, seqs: Iterable[int]) -> Mapping[int, Event]:
        return {}

    def all(self) -> list[Event]:
        return []

    def messages(self, seqs: Iterable[int]) -> Mapping[int, Message | None]:
        return {}
