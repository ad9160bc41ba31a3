"""Event-log append and open at two sizes (10× apart). Each log is written line by line with
:meth:`Event.to_json` and synced once (so no append pays for flushing the seed), then opened
with :meth:`EventLog.open` and appended to. An append is timed with its fsync; the two logs'
appends alternate (small, large, small, ...) so a slow moment of the disk falls on both sides
of the ratio, and the fastest append of each is used (an fsync on a busy disk only ever adds
time). Measured one after the other, with the median, the 10× ratio read 3.11 in one CI run
on a quiet machine."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from benchmarks.common import Row, timed
from harness.messages import Message
from harness.store.eventlog import Event, EventLog

__all__ = ["rows"]

TIME = "2026-10-30T12:33:04Z"


APPENDS = 9


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


def _measure(counts: tuple[int, int]) -> list[tuple[float, float]]:
    """``(open seconds per event, fastest append)`` for a log of each size."""
    with tempfile.TemporaryDirectory() as tmp:
        logs = [_opened(Path(tmp), count) for count in counts]
        appends: list[list[float]] = [[] for _ in counts]
        for _ in range(APPENDS):
            for (log, _), taken in zip(logs, appends, strict=True):
                taken.append(timed(lambda log=log: log.append_message(Message.user("more"))))  # type: ignore[misc]
        return [
            (per_event, min(taken)) for (_, per_event), taken in zip(logs, appends, strict=True)
        ]


def rows(quick: bool) -> list[Row]:
    small, large = (1_000, 10_000) if quick else (10_000, 100_000)
    (open_small, append_small), (open_large, append_large) = _measure((small, large))
    return [
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
