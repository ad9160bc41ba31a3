"""Reopening an event log: from its snapshot, against the floor and at two sizes.

* **after 2,008 compacted turns** (each turn a question, a tool call, its result and the answer;
  a compaction every 10 turns keeps the last 8 messages, so the context grows from 9 to 49
  messages between compactions; 8 turns after the last one it holds 41, the issue's "40-message
  context", read as a snapshot (the fold's header and the latest event of each type; the
  summary node is read from the log when first asked for) and a tail of 33): the reopen
  (:meth:`EventLog.open`, which reads the snapshot and the tail after it) against a plain
  ``json.loads`` of the lines it reads (the snapshot's and the tail's), alternated; and the same
  **right after the compaction of turn 2,000** (9 messages, the smallest context: the open's
  fixed cost, lock, symlink-safe path walk, checksum and guard, weighs most there), reported;
* **after 2,000 tool-calling turns that never compacted** (8,000 events, all on the
  surface): the reopen with every message of the context read (what the next request sends)
  against ``json.loads`` of all the log's lines, alternated (gate 3×, full profile);
* **at 10K and 100K events** (quick: 1K and 10K) of the same workload: the reopen at the larger
  over the smaller, alternated; and the full replay from the start (:meth:`EventLog.replay`,
  the reference) beside it.

Each reopen appends its ``session/end-seed``; the logs are opened with ``durability="os"`` so
that what is timed is the read, not that one line's fsync. Times are CPU times (the machine's
disk and page cache are shared: a wall time of a few milliseconds read 6× apart for two reopens
whose CPU times were 1.06× apart); the garbage collector is on.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import Row, cpu_and_wall
from benchmarks.turns import tool_turns
from harness.fs.path import WorkspacePath
from harness.messages import Message
from harness.store.eventlog import EventLog
from harness.store.eventlog.snapshot import snapshot_path

__all__ = ["rows"]

REPEATS = 21
REPORTED = 5
"""Rounds of a row that ``--quick`` only reports (the never-compacted reopen at 2,000 turns: a
reopen of 8,000 events and their ``json.loads`` per round, 21 rounds were about 5 s of CPU of
the quick run for a row with no gate there)."""


def compacted_log(path: Path, turns: int) -> None:
    """Write ``turns`` tool-calling turns with a compaction every 10 to ``path``, then open it
    once (the open writes the snapshot if the last compaction did not)."""
    log = EventLog(path, durability="os")
    messages = tool_turns(turns)
    for turn in range(turns):
        for message in messages[4 * turn : 4 * turn + 4]:
            log.append_message(message)
        if turn % 10 == 9:
            nodes = log.node_seqs
            start = log.append("compaction/start", {"compaction_id": f"k{turn}"})
            summary = Message.user(f"summary of turns up to {turn}: 上海港 bookings confirmed")
            log.replace_span(0, len(nodes) - 9, summary, extra_sources=(start.seq,))
            log.append("compaction/end", {"compaction_id": f"k{turn}"})
    EventLog.open(path, durability="os")


def never_compacted_log(path: Path, turns: int) -> None:
    """``turns`` tool-calling turns and no compaction, then one open (its first snapshot)."""
    log = EventLog(path, durability="os")
    for message in tool_turns(turns):
        log.append_message(message)
    EventLog.open(path, durability="os")


def _context_rows(path: Path, turns: int, gate: bool) -> list[Row]:
    """A never-compacted session's reopen with every message of its context read (what the
    next request needs), against ``json.loads`` of all the log's lines, alternated
    (:data:`REPEATS` rounds where gated, else :data:`REPORTED`)."""
    lines = [line for line in path.read_bytes().split(b"\n") if line]
    reopen, floor = [], []
    for _ in range(REPEATS if gate else REPORTED):
        reopen.append(_cpu(lambda: EventLog.open(path, durability="os").messages()))
        floor.append(_cpu(lambda: [json.loads(line) for line in lines]))
    r, f = statistics.median(reopen), statistics.median(floor)
    ratios = sorted(a / b for a, b in zip(reopen, floor, strict=True))
    what = f"after {turns:,} tool-calling turns, never compacted"
    return [
        Row("reopen", f"{what}: reopen + every message, CPU", r * 1e3, "ms",
            note=f"min {min(reopen) * 1e3:.1f} ms, max {max(reopen) * 1e3:.1f} ms"),
        Row("reopen", f"{what}: reopen + every message / json.loads of all its lines", r / f,
            gate=3.0, enforced=gate,
            note=f"json.loads {f * 1e3:.1f} ms ({len(lines):,} lines); paired ratios "
            f"{ratios[0]:.2f}-{ratios[-1]:.2f}, {len(ratios)} rounds"
            + ("" if gate else "; quick: report only")),
    ]  # fmt: skip


def _lines_read(path: Path) -> list[bytes]:
    """The lines a reopen reads: the snapshot's and the log's after its offset."""
    raw = snapshot_path(WorkspacePath.of(path)).path.read_bytes()
    header = json.loads(raw.split(b"\n", 2)[1])
    tail = path.read_bytes()[header["offset"] :]
    return [line for line in (*raw.split(b"\n")[1:], *tail.split(b"\n")) if line]


def _cpu(function: Callable[[], object]) -> float:
    return cpu_and_wall(function)[0]


def _reopen(path: Path) -> float:
    return _cpu(lambda: EventLog.open(path, durability="os"))


def _floor(path: Path) -> float:
    lines = _lines_read(path)
    return _cpu(lambda: [json.loads(line) for line in lines])


def _alternated(paths: list[Path]) -> tuple[list[list[float]], list[list[float]]]:
    """Reopen and floor CPU times of each log, alternated over :data:`REPEATS` rounds."""
    reopen: list[list[float]] = [[] for _ in paths]
    floor: list[list[float]] = [[] for _ in paths]
    for _ in range(REPEATS):
        for i, path in enumerate(paths):
            reopen[i].append(_reopen(path))
            floor[i].append(_floor(path))
    return reopen, floor


def _ratio_rows(reopen: list[float], floor: list[float], what: str, gate: bool) -> list[Row]:
    r, f = statistics.median(reopen), statistics.median(floor)
    ratio = statistics.median(a / b for a, b in zip(reopen, floor, strict=True))
    spread = f"min {min(reopen) * 1e3:.2f} ms, max {max(reopen) * 1e3:.2f} ms"
    return [
        Row("reopen", f"{what}: reopen, CPU", r * 1e3, "ms", note=spread),
        Row("reopen", f"{what}: reopen / json.loads of the lines it reads", r / f, gate=5.0,
            enforced=gate,
            note=f"json.loads {f * 1e3:.3f} ms; median of the {REPEATS} paired ratios "
            f"{ratio:.2f}×" + ("" if gate else "; report only: the smallest context, where "
                                "the open's fixed cost is most of it")),
    ]  # fmt: skip


def rows(quick: bool) -> list[Row]:
    small, large = (1_000, 10_000) if quick else (10_000, 100_000)
    with tempfile.TemporaryDirectory() as tmp:
        mid, after = Path(tmp) / "mid.jsonl", Path(tmp) / "after.jsonl"
        compacted_log(mid, 2_008)
        compacted_log(after, 2_000)
        (mid_reopen, after_reopen), (mid_floor, after_floor) = _alternated([mid, after])
        plain = Path(tmp) / "never.jsonl"
        never_compacted_log(plain, 2_000)
        context = _context_rows(plain, 2_000, gate=not quick)
        logs = {}
        for events in (small, large):
            logs[events] = Path(tmp) / f"{events}.jsonl"
            compacted_log(logs[events], events // 4)
        sized: dict[int, list[float]] = {small: [], large: []}
        for _ in range(REPEATS):
            for events, path in logs.items():
                sized[events].append(_reopen(path))
        replay = {n: _cpu(lambda p=p: EventLog.replay(p)) for n, p in logs.items()}  # type: ignore[misc]
    s, lg = statistics.median(sized[small]), statistics.median(sized[large])
    return [
        *_ratio_rows(mid_reopen, mid_floor, "after 2,008 compacted turns (41 messages)", True),
        *_ratio_rows(after_reopen, after_floor, "right after a compaction (9 messages)", False),
        *context,
        Row("reopen", f"reopen at {large:,} events / at {small:,}", lg / s, gate=2.0,
            note=f"{s * 1e3:.2f} ms → {lg * 1e3:.2f} ms"),
        Row("reopen", f"full replay at {large:,} events / reopen at {large:,}",
            replay[large] / lg, note=f"replay {replay[large] * 1e3:.0f} ms (the reference)"),
    ]  # fmt: skip
