"""Per-turn cost at turn 50 vs a late turn (2,000; quick: 300), for both stores and both
engines, with a tool call in every turn and no compaction (the engines' triggers are far away,
so every turn still runs their checks). One more case is the hard one of ctxlab's own profile
(AgentScope's 50-message trigger and 8,000-token tail, the thrash guard): the message trigger
fires at every request and the guard skips every compaction, because the kept tail itself
holds more than 50 messages, so every request plans a compaction over the whole history.

A turn is the workload a tool-using agent makes: the user message, an assistant reply calling a
tool, the tool's result, the final answer (a scripted model answers instantly, so what is
timed is the framework). Each session is seeded to ``turn - 1`` such turns through the stores'
public interfaces (the state store saves a state, the event log is written event by event and
reopened), with the default durability (``per-turn``: one group commit per file per turn).
One untimed turn follows the reopen (it prices the whole context once, as the reopen reads
it once). Then 15 turns of each session are timed, the early and the late session's turns
alternating, so a slow moment of the machine falls on both sides. The garbage collector stays
on. Each turn is timed twice over: its CPU time (the framework's own work, gated) and its wall
time (that plus the fsync of the group commit, which on a shared disk is mostly waiting:
reported). Each row gives the median and p95 beside the fastest; bytes written per turn come
from ``/proc/self/io`` (``wchar``), the median and the worst turn's.
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from benchmarks.check_cost import CONFIG
from benchmarks.common import Row, Spread, cpu_and_wall, spread
from harness.agent import Agent
from harness.compaction.agentscope import ctxlab_profile
from harness.compaction.dsh import DshConfig
from harness.compaction.factory import make_engine
from harness.messages import Message, ToolCall
from harness.model import ChatRequest
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.history import History, StateHistory
from harness.store.statefile import AgentState, JsonStateStore, Transcript
from harness.testing import FunctionModel
from harness.tools import Tool

__all__ = ["question", "rows", "tool_turns"]

TURNS_TIMED = 15


def question(turn: int) -> str:
    """The user's question of turn ``turn`` (0-based): common terms in every one."""
    return f"question {turn}: 上海港 booking BK-{turn}"


def tool_turns(turns: int) -> list[Message]:
    """``turns`` turns of four messages: a question, a tool call, its result, the answer."""
    out: list[Message] = []
    for t in range(turns):
        call = ToolCall(f"seed_{t}", "lookup", f'{{"booking": "BK-{t}"}}')
        out += [
            Message.user(question(t)),
            Message.assistant("", [call]),
            Message.tool(call.id, f"BK-{t}: 每柜 USD {2000 + t}", tool_name="lookup"),
            Message.assistant(f"answer {t}: confirmed, 每柜 USD {2000 + t}"),
        ]
    return out


def _reply(request: ChatRequest) -> Message:
    last = request.messages[-1]
    if last.role == "user":
        n = len(request.messages)
        return Message.assistant("", [ToolCall(f"call_{n}", "lookup", '{"booking": "BK-1"}')])
    return Message.assistant("confirmed, 已确认")


def _written() -> int | None:
    try:
        text = Path("/proc/self/io").read_text()
    except OSError:
        return None
    return next(int(line.split()[1]) for line in text.splitlines() if line.startswith("wchar"))


def _state_history(folder: Path, seed: list[Message]) -> History:
    store = JsonStateStore(folder / "state", durability="per-turn")
    store.save(AgentState("s", list(seed)))
    return StateHistory("s", store, Transcript(folder / "s.jsonl", durability="per-turn"))


def _eventlog_history(folder: Path, seed: list[Message]) -> History:
    path = folder / "s.jsonl"
    memory = EventLog()
    for message in seed:
        memory.append_message(message)
    path.write_text("".join(e.to_json() + "\n" for e in memory.events), encoding="utf-8")
    return EventLogHistory(EventLog.open(path, durability="per-turn"))


Setup = Callable[[Path, list[Message]], History]
CASES: list[tuple[str, Setup, str]] = [
    ("state store + AgentScope", _state_history, "agentscope"),
    ("event log + AgentScope", _eventlog_history, "agentscope"),
    ("event log + DSH", _eventlog_history, "dsh"),
    ("state store + ctxlab profile, every compaction skipped", _state_history, "guarded"),
]
GUARDED = replace(
    ctxlab_profile(),
    trigger_tokens=10**12,  # the message trigger alone: no compaction ever runs
    keep_tokens=8_000,  # AgentScope's dynamic tail for a 128K window
    flush_before_compact=False,
    offload_before_compact=False,
)


def _agent(folder: Path, setup: Setup, engine: str, turn: int) -> Agent:
    folder.mkdir()
    history = setup(folder, tool_turns(turn - 1))
    configs = {"agentscope": CONFIG, "guarded": GUARDED}
    config = configs.get(engine) or DshConfig(context_window=10**12)
    model = FunctionModel(_reply)
    lookup = Tool.from_function(lambda booking: f"{booking}: confirmed", name="lookup")
    engine_ = make_engine(config, model, history=history)
    agent = Agent(model, "system", [lookup], engine=engine_, history=history)
    agent.call("warm up")  # the first turn after a reopen prices the whole context, once
    return agent


def _call(agent: Agent, text: str) -> tuple[float, float, int | None]:
    before = _written()
    cpu, wall = cpu_and_wall(lambda: agent.call(text))
    after = _written()
    return cpu, wall, (after - before if before is not None and after is not None else None)


Costs = tuple[list[float], list[float], list[int]]


def _turn_costs(setup: Setup, engine: str, turns: tuple[int, int]) -> list[Costs]:
    """The timed turns' seconds and bytes written, per session; the sessions' turns alternate
    (early, late, early, late, ...)."""
    with tempfile.TemporaryDirectory() as tmp:
        agents = [_agent(Path(tmp) / str(t), setup, engine, t) for t in turns]
        samples: list[list[tuple[float, float, int | None]]] = [[] for _ in turns]
        for i in range(TURNS_TIMED):
            for agent, turn, taken in zip(agents, turns, samples, strict=True):
                taken.append(_call(agent, f"turn {turn + i}"))
    return [
        ([c for c, _, _ in s], [w for _, w, _ in s], [b for _, _, b in s if b is not None])
        for s in samples
    ]


def _time_rows(name: str, turn: int, cpu: Spread, wall: Spread) -> Row:
    note = (
        f"CPU min {cpu.low * 1e3:.2f} ms, p95 {cpu.p95 * 1e3:.2f} ms; "
        f"wall median {wall.median * 1e3:.1f} ms, p95 {wall.p95 * 1e3:.1f} ms"
    )
    return Row("agent turn", f"{name}: turn {turn}, CPU median", cpu.median * 1e3, "ms", note=note)


def rows(quick: bool) -> list[Row]:
    late = 300 if quick else 2_000
    out = []
    for name, setup, engine in CASES:
        (early_c, early_w, early_b), (late_c, late_w, late_b) = _turn_costs(
            setup, engine, (50, late)
        )
        ec, lc, ew, lw = spread(early_c), spread(late_c), spread(early_w), spread(late_w)
        out += [_time_rows(name, 50, ec, ew), _time_rows(name, late, lc, lw)]
        note = (
            f"CPU min {lc.low / ec.low:.2f}×, p95 {lc.p95 / ec.p95:.2f}×; "
            f"wall median {lw.median / ew.median:.2f}×, p95 {lw.p95 / ew.p95:.2f}×"
        )
        ratio = f"{name}: turn {late} / turn 50, CPU median"
        out.append(Row("agent turn", ratio, lc.median / ec.median, gate=1.5, note=note))
        if early_b and late_b:
            early_med, late_med = statistics.median(early_b), statistics.median(late_b)
            note = (
                f"median {early_med:,.0f} B → {late_med:,.0f} B; "
                f"worst turn {max(early_b):,} B → {max(late_b):,} B"
            )
            bytes_ = f"{name}: bytes written, turn {late} / turn 50, median"
            out.append(Row("agent turn", bytes_, late_med / early_med, gate=1.5, note=note))
    return out
