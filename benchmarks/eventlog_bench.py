"""Event-log append and open at two sizes (10× apart). Each log is written line by line with
:meth:`Event.to_json` and synced once (so no append pays for flushing the seed), then opened
with :meth:`EventLog.open` and appended to. An append is timed with its fsync; the two logs'
appends alternate (small, large, small, ...) so a slow moment of the disk falls on both sides
of the ratio, and the fastest append of each is used (an fsync on a busy disk only ever adds
time). Measured one after the other, with the median, the 10× ratio read 3.11 in one CI run
on a quiet machine."""

from __future__ import annotations

import json
import math
import os
import statistics
import tempfile
from pathlib import Path

from benchmarks.common import Row, timed
from harness.messages import Message
from harness.store.eventlog import Event, EventLog

__all__ = ["rows"]

TIME = "2026-10-30T12:33:04Z"


APPENDS = 9
STALL = 20.0
"""Paired ratios further apart than this mean a disk stall took one side of a pair."""


def _seed(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for seq in range(count):
            message = Message.user(f"event {seq}: 上海港 booking").to_record()
            event = Event(seq, "user/message", TIME, {"message": message}, "append", ())
            handle.write(event.to_json() + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def _opened(folder: Path, count: int) -> tuple[EventLog, float]:
    """A log of ``count`` events, and the seconds per event its open took."""
    path = folder / f"{count}.jsonl"
    _seed(path, count)
    holder: list[EventLog] = []
    opened = timed(lambda: holder.append(EventLog.open(path)))
    return holder[0], opened / count


def _raw_append(fd: int) -> None:
    """The floor of one durable append: the event's JSON, one write, one fsync."""
    message = Message.user("more").to_record()
    event = {"seq": 0, "type": "user/message", "time": TIME, "data": {"message": message}}
    os.write(fd, (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8"))
    os.fsync(fd)


def _measure(counts: tuple[int, int]) -> tuple[list[tuple[float, float]], list[float]]:
    """``(open seconds per event, fastest append)`` for a log of each size, and every append
    to the larger log beside a raw durable append (``_raw_append``), alternated."""
    with tempfile.TemporaryDirectory() as tmp:
        logs = [_opened(Path(tmp), count) for count in counts]
        appends: list[list[float]] = [[] for _ in counts]
        raw: list[float] = []
        fd = os.open(Path(tmp) / "raw.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            for _ in range(APPENDS):
                for (log, _), taken in zip(logs, appends, strict=True):
                    taken.append(timed(lambda log=log: log.append_message(Message.user("more"))))  # type: ignore[misc]
                raw.append(timed(lambda: _raw_append(fd)))
        finally:
            os.close(fd)
        opened = [
            (per_event, min(taken)) for (_, per_event), taken in zip(logs, appends, strict=True)
        ]
        return opened, [a / r for a, r in zip(appends[-1], raw, strict=True)]


def _durable_row(ratios: list[float], large: int) -> Row:
    """The append (fsync included) over the raw durable append: the median of the paired
    ratios, or NaN when the spread says a disk stall took one side (STALL)."""
    middle = statistics.median(ratios)
    what = f"append at {large:,} events / json.dumps + write + fsync"
    if max(ratios) / max(min(ratios), 1e-9) > STALL:
        note = f"a disk stall: paired ratios {min(ratios):.2f}-{max(ratios):.2f}, not a reading"
        return Row("event log", what, math.nan, gate=3.0, note=note)
    note = f"median of {len(ratios)} paired ratios, {min(ratios):.2f}-{max(ratios):.2f}"
    return Row("event log", what, middle, gate=3.0, note=note)


def rows(quick: bool) -> list[Row]:
    small, large = (1_000, 10_000) if quick else (10_000, 100_000)
    opened, durable = _measure((small, large))
    (open_small, append_small), (open_large, append_large) = opened
    return [
        _durable_row(durable, large),
        Row("event log", f"append at {small:,} events", append_small * 1e3, "ms"),
        Row(
            "event log",
            f"append at {large:,} / at {small:,}",
            append_large / append_small,
            gate=2.0,
        ),
        Row("event log", f"open per event at {small:,}", open_small * 1e6, "µs"),
        Row(
            "event log",
            f"open per event at {large:,} / at {small:,}",
            open_large / open_small,
            gate=2.0,
        ),
    ]
