"""Per-turn cost at turn 50 vs a late turn, for both stores and both engines (scripted model).

A session is seeded to ``turn - 1`` earlier turns through the stores' public interfaces (the
state store saves a state, the event log is written event by event and reopened), then a few
agent calls are timed. Bytes written per turn come from ``/proc/self/io`` (``wchar``) where the
system has it. The time of a turn is the fastest of the timed turns (an fsync on a busy disk only
ever adds time, so the minimum is the steadiest estimate of the turn's own cost).
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchmarks.check_cost import CONFIG, conversation
from benchmarks.common import Row, timed
from harness.agent import Agent
from harness.compaction.dsh import DshConfig
from harness.compaction.factory import make_engine
from harness.messages import Message
from harness.model import ChatRequest
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.history import History, StateHistory
from harness.store.statefile import AgentState, JsonStateStore, Transcript
from harness.testing import FunctionModel

__all__ = ["rows"]

TURNS_TIMED = 9


def _reply(request: ChatRequest) -> Message:
    return Message.assistant("confirmed, 已确认")


def _written() -> int | None:
    try:
        text = Path("/proc/self/io").read_text()
    except OSError:
        return None
    return next(int(line.split()[1]) for line in text.splitlines() if line.startswith("wchar"))


def _state_history(folder: Path, seed: list[Message]) -> History:
    store = JsonStateStore(folder / "state")
    store.save(AgentState("s", list(seed)))
    return StateHistory("s", store, Transcript(folder / "s.jsonl"))


def _eventlog_history(folder: Path, seed: list[Message]) -> History:
    path = folder / "s.jsonl"
    memory = EventLog()
    for message in seed:
        memory.append_message(message)
    path.write_text("".join(e.to_json() + "\n" for e in memory.events), encoding="utf-8")
    return EventLogHistory(EventLog.open(path))


Setup = Callable[[Path, list[Message]], History]
CASES: list[tuple[str, Setup, str]] = [
    ("state store + AgentScope", _state_history, "agentscope"),
    ("event log + AgentScope", _eventlog_history, "agentscope"),
    ("event log + DSH", _eventlog_history, "dsh"),
]


def _turn_cost(setup: Setup, engine: str, turn: int) -> tuple[float, float | None]:
    with tempfile.TemporaryDirectory() as tmp:
        history = setup(Path(tmp), conversation(2 * (turn - 1)))
        config = CONFIG if engine == "agentscope" else DshConfig(context_window=10**12)
        model = FunctionModel(_reply)
        compaction = make_engine(config, model, history=history)
        agent = Agent(model, "system", engine=compaction, history=history)
        times, written = [], []
        for i in range(TURNS_TIMED):
            before = _written()
            text = f"turn {turn + i}"
            times.append(timed(lambda t=text: agent.call(t)))  # type: ignore[misc]
            after = _written()
            if before is not None and after is not None:
                written.append(after - before)
        return min(times), (statistics.median(written) if written else None)


def rows(quick: bool) -> list[Row]:
    late = 300 if quick else 1_000
    out = []
    for name, setup, engine in CASES:
        early_time, early_bytes = _turn_cost(setup, engine, 50)
        late_time, late_bytes = _turn_cost(setup, engine, late)
        out.append(Row("agent turn", f"{name}: turn 50", early_time * 1e3, "ms"))
        out.append(
            Row(
                "agent turn",
                f"{name}: turn {late} / turn 50",
                late_time / early_time,
                gate=1.5,
            )
        )
        if early_bytes and late_bytes:
            out.append(
                Row(
                    "agent turn",
                    f"{name}: bytes written, turn {late} / turn 50",
                    late_bytes / early_bytes,
                    gate=1.5,
                )
            )
    return out
