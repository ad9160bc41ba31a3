"""Reopening a session of a million events that never compacted, in both log formats.

The session is the agent-turn workload (a question, a tool call, its result, the answer;
:func:`~benchmarks.turns.tool_turns`), 100,000 and 1,000,000 events (quick: 20,000), written
line by line by the format's own encoder (:meth:`Codec.encode` and, for dsh, its session header:
the bytes ``EventLog`` appends), then opened once: that first open has no snapshot, replays
every line and writes one (the **full replay**: what every reopen of such a session cost before
periodic snapshots, whose last snapshot was the one at event 500); then 998 events are appended,
so the tail after the snapshot is one event short of the next one, the longest a reopen reads
(its own ``session/end-seed`` makes the 999th). Then, alternated, each in a fresh process: the
**reopen** (:meth:`EventLog.open`, from the snapshot: ctxlab's ``.snapshot``, dsh's sidecar
``.ctxlab-snapshot``) and the **raw read** of the same file (its lines, ``readlines``), each as
CPU time and as the growth of the process's peak RSS (``VmHWM``, reset through
``/proc/self/clear_refs`` after the imports) over what it held then. At the full size the reopen
is gated against the raw read: it must cost less than reading the file, in time and in memory,
however many events come before the snapshot (quick: report only; at 20,000 events the 999-event
tail is a good part of the file). At 100,000 events only the memory is gated (issue 48 asks at
most 1.2× the raw lines'; the gate is 1×): there the reopen and the raw read both take 25–40 ms,
and four idle runs read the CPU ratio between 0.83× and 1.10×, the machine's noise the size of
the margin, so that row is reported, and the CPU is gated at 1,000,000 events, where the file's
size, not a process's fixed cost, decides it."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from benchmarks.common import Row
from benchmarks.turns import tool_turns
from harness.store.eventlog import Event
from harness.store.eventlog.codec import make_codec
from harness.store.eventlog.events import surface_type

__all__ = ["rows", "write_session"]

TIME = "2026-10-30T12:33:04Z"
ROUNDS = 3

CHILD = textwrap.dedent(
    """
    import gc, json, re, sys, time
    from harness.store.eventlog import EventLog

    def kb(field: str) -> int:
        with open("/proc/self/status") as handle:
            return int(re.search(field + r":\\s+(\\d+)", handle.read()).group(1))

    path, mode = sys.argv[1], sys.argv[2]
    gc.collect()
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")  # the peak RSS starts again from what the imports left
    base = kb("VmRSS")
    cpu, wall = time.process_time(), time.perf_counter()
    if mode == "raw":
        with open(path, "rb") as handle:
            held = handle.readlines()
        count = len(held)
    else:
        held = EventLog.open(path, durability="os")
        count = len(held.events)
        assert (held.opened_from_snapshot is None) == (mode == "replay"), mode
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if mode == "replay":  # a tail one event short of the next snapshot: the longest there is
        from harness.messages import Message
        for n in range(held.snapshot_every - 2):
            held.append_message(Message.user(f"after the snapshot {n}: 上海港 booking"))
    grew = (kb("VmHWM") - base) * 1024
    print(json.dumps({"cpu": cpu, "wall": wall, "grew": max(0, grew), "count": count}))
    """
)


def write_session(path: Path, events: int, format: str) -> None:
    """``events`` events of tool-calling turns, as ``EventLog`` in ``format`` writes them."""
    codec = make_codec(format, path)
    calls: dict[str, int] = {}
    with path.open("w", encoding="utf-8") as handle:
        for seq, message in enumerate(tool_turns(-(-events // 4))[:events]):
            sources = (calls[message.tool_call_id],) if message.tool_call_id else ()
            calls.update((call.id, seq) for call in message.tool_calls)
            record = {"message": message.to_record()}
            event = Event(seq, surface_type(message), TIME, record, "append", sources)
            if seq == 0:
                handle.write(codec.preamble(event))
            handle.write(codec.encode(event) + "\n")


def _child(path: Path, mode: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), mode],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)


def _rows(path: Path, format: str, events: int, gate: bool, gate_cpu: bool) -> list[Row]:
    replay = _child(path, "replay")  # the first open: no snapshot yet; it writes one
    reopen: list[dict[str, float]] = []
    raw: list[dict[str, float]] = []
    for _ in range(ROUNDS):
        reopen.append(_child(path, "reopen"))
        raw.append(_child(path, "raw"))

    def median(runs: list[dict[str, float]], key: str) -> float:
        return statistics.median(run[key] for run in runs)

    cpu, raw_cpu = median(reopen, "cpu"), median(raw, "cpu")
    grew, raw_grew = median(reopen, "grew"), median(raw, "grew")
    what = f"{format} format, {events:,} events"
    mb = 1 << 20
    return [
        Row("big session", f"{what}: reopen / raw read of its lines, CPU", cpu / raw_cpu,
            gate=1.0 if gate and gate_cpu else None,
            note=f"reopen {cpu * 1e3:.0f} ms, raw read {raw_cpu * 1e3:.0f} ms "
            f"({path.stat().st_size / mb:.0f} MB); median of {ROUNDS}, alternated"),
        Row("big session", f"{what}: reopen / raw read of its lines, peak RSS growth",
            grew / max(raw_grew, 1), gate=1.0 if gate else None,
            note=f"reopen {grew / mb:.0f} MB, raw read {raw_grew / mb:.0f} MB"),
        Row("big session", f"{what}: full replay (before) / raw read, CPU",
            replay["cpu"] / raw_cpu,
            note=f"full replay {replay['cpu']:.1f} s, peak RSS growth "
            f"{replay['grew'] / mb:.0f} MB ({replay['grew'] / max(raw_grew, 1):.1f}× the raw "
            "read's): the cost of every reopen before, report only"),
    ]  # fmt: skip


def rows(quick: bool) -> list[Row]:
    sizes = (20_000,) if quick else (100_000, 1_000_000)
    out: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        for events in sizes:
            for format in ("ctxlab", "dsh"):
                path = Path(tmp) / f"{format}.jsonl"
                write_session(path, events, format)
                out += _rows(path, format, events, gate=not quick, gate_cpu=events >= 1_000_000)
                path.unlink()
    return out
