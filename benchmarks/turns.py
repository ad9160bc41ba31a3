"""Per-turn cost at turn 50 vs a late turn, for both stores and both engines (scripted model).

A session is seeded to ``turn - 1`` earlier turns through the stores' public interfaces (the
state store saves a state, the event log is written event by event and reopened), then a few
agent calls are timed, the early and the late session's calls alternating. Bytes written per
turn come from ``/proc/self/io`` (``wchar``) where the system has it. The time of a turn is the
fastest of the timed turns (an fsync on a busy disk only ever adds time, so the minimum is the
steadiest estimate of the turn's own cost).
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


def _agent(folder: Path, setup: Setup, engine: str, turn: int) -> Agent:
    folder.mkdir()
    history = setup(folder, conversation(2 * (turn - 1)))
    config = CONFIG if engine == "agentscope" else DshConfig(context_window=10**12)
    model = FunctionModel(_reply)
    return Agent(
        model, "system", engine=make_engine(config, model, history=history), history=history
    )


def _call(agent: Agent, text: str) -> tuple[float, int | None]:
    before = _written()
    elapsed = timed(lambda: agent.call(text))
    after = _written()
    return elapsed, (after - before if before is not None and after is not None else None)


def _turn_costs(
    setup: Setup, engine: str, turns: tuple[int, int]
) -> list[tuple[float, float | None]]:
    """``(fastest time, median bytes written)`` of a turn at each of ``turns``. The sessions'
    turns alternate (early, late, early, late, ...), so a slow moment of the machine (a busy
    disk, another process) falls on both sides of the ratio instead of on one."""
    with tempfile.TemporaryDirectory() as tmp:
        agents = [_agent(Path(tmp) / str(t), setup, engine, t) for t in turns]
        samples: list[list[tuple[float, int | None]]] = [[] for _ in turns]
        for i in range(TURNS_TIMED):
            for agent, turn, taken in zip(agents, turns, samples, strict=True):
                taken.append(_call(agent, f"turn {turn + i}"))
    out: list[tuple[float, float | None]] = []
    for taken in samples:
        written = [w for _, w in taken if w is not None]
        out.append((min(t for t, _ in taken), statistics.median(written) if written else None))
    return out


def rows(quick: bool) -> list[Row]:
    late = 300 if quick else 1_000
    out = []
    for name, setup, engine in CASES:
        (early_time, early_bytes), (late_time, late_bytes) = _turn_costs(setup, engine, (50, late))
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
