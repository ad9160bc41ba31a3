"""Persistence cost of the two session stores at two history lengths (what a turn costs each).

Prints, through public interfaces only: event-log append time at 10K and 100K events, open time
per event at both sizes, and the bytes each store writes per agent turn at turn 50 and turn
1,000 (``wchar`` from ``/proc/self/io``). ``--quick`` uses 1K/10K events and turns 50/300;
``--no-fsync`` makes ``os.fsync`` a no-op, to see the in-memory work of an append without the
disk's flush time (which dominates it and varies with the machine's load).

    python scripts/measure_stores.py [--quick] [--no-fsync]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from harness.agent import Agent
from harness.messages import Message
from harness.store.eventlog import Event, EventLog, EventLogHistory
from harness.store.history import History, StateHistory
from harness.store.statefile import JsonStateStore, Transcript
from harness.testing import FunctionModel

TIME = "2026-10-30T12:33:04Z"


def _seed_log(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for seq in range(count):
            message = Message.user(f"event {seq}: 上海港 booking " + "x" * 80).to_record()
            handle.write(Event(seq, "user/message", TIME, {"message": message}, "append").to_json())
            handle.write("\n")


def eventlog(count: int) -> tuple[float, float]:
    """(open seconds per event, median append seconds) at ``count`` events."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.jsonl"
        _seed_log(path, count)
        start = time.perf_counter()
        log = EventLog.open(path)
        opened = time.perf_counter() - start
        appends = []
        for n in range(21):
            start = time.perf_counter()
            log.append_message(Message.user(f"more {n}"))
            appends.append(time.perf_counter() - start)
        return opened / count, statistics.median(appends)


def _written() -> int:
    text = Path("/proc/self/io").read_text()
    return next(int(line.split()[1]) for line in text.splitlines() if line.startswith("wchar"))


def _state(folder: Path) -> History:
    store = JsonStateStore(folder / "state")
    return StateHistory("s", store, Transcript(folder / "s.jsonl"))


def _events(folder: Path) -> History:
    return EventLogHistory(EventLog(folder / "events.jsonl"))


def per_turn(make: Callable[[Path], History], turns: tuple[int, int]) -> list[tuple[int, float]]:
    """Bytes written and seconds per turn, averaged over 5 turns ending at each length."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        history = make(Path(tmp))
        agent = Agent(FunctionModel(lambda r: "confirmed, 已确认 " + "y" * 60), history=history)
        done = 0
        for target in turns:
            while done < target - 5:
                agent.call(f"turn {done} " + "z" * 120)
                done += 1
            before, start = _written(), time.perf_counter()
            for _ in range(5):
                agent.call(f"turn {done} " + "z" * 120)
                done += 1
            results.append(((_written() - before) // 5, (time.perf_counter() - start) / 5))
    return results


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    if "--no-fsync" in argv:
        os.fsync = lambda fd: None
    small, large = (1_000, 10_000) if quick else (10_000, 100_000)
    turns = (50, 300) if quick else (50, 1_000)
    open_s, append_s = eventlog(small)
    open_l, append_l = eventlog(large)
    print(
        f"event log append   {small:>7,}: {append_s * 1e3:8.3f} ms   {large:,}: "
        f"{append_l * 1e3:8.3f} ms   ratio {append_l / append_s:5.2f}"
    )
    print(
        f"event log open/evt {small:>7,}: {open_s * 1e6:8.1f} µs   {large:,}: "
        f"{open_l * 1e6:8.1f} µs   ratio {open_l / open_s:5.2f}"
    )
    for name, make in (("state store", _state), ("event log  ", _events)):
        (b1, t1), (b2, t2) = per_turn(make, turns)
        print(
            f"{name} bytes/turn at {turns[0]}: {b1:>9,}  at {turns[1]}: {b2:>9,}  ratio "
            f"{b2 / b1:5.2f}   s/turn {t1 * 1e3:6.2f} ms vs {t2 * 1e3:6.2f} ms"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
