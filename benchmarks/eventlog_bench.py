"""Event-log append and open at two sizes (10× apart). The log is written line by line with
:meth:`Event.to_json` (no fsync per seed event), then opened with :meth:`EventLog.open` and
appended to; the append is timed with its fsync, so the median of several appends is used."""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

from benchmarks.common import Row, timed
from harness.messages import Message
from harness.store.eventlog import Event, EventLog

__all__ = ["rows"]

TIME = "2026-10-30T12:33:04Z"


def _seed(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for seq in range(count):
            message = Message.user(f"event {seq}: 上海港 booking").to_record()
            event = Event(seq, "user/message", TIME, {"message": message}, "append", ())
            handle.write(event.to_json() + "\n")


def _measure(count: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.jsonl"
        _seed(path, count)
        holder: list[EventLog] = []
        opened = timed(lambda: holder.append(EventLog.open(path)))
        log = holder[0]
        appends = [timed(lambda: log.append_message(Message.user("more"))) for _ in range(7)]
        return opened / count, statistics.median(appends)


def rows(quick: bool) -> list[Row]:
    small, large = (1_000, 10_000) if quick else (10_000, 100_000)
    open_small, append_small = _measure(small)
    open_large, append_large = _measure(large)
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
