"""The recall's cost per request (``CompactionConfig.recall``) early and late in a session that
compacts, on the hard case: tool-calling turns whose questions share common terms.

Each session is the agent-turn workload (:func:`~benchmarks.turns.question`, a question that
says ``上海港 booking``, a tool call, its result, the answer) played through :class:`Agent` on the
event log with an AgentScope engine that compacts whenever the context passes 1,500 tokens,
keeping a 400-token tail, and recalls (``RecallConfig``: 200 tokens, 3 turns): every compaction
shadows more originals. A scripted model answers instantly and writes a one-line summary, so
what is timed is the harness. One session is played to turn 50, the other to the late turn
(1,000; quick: 200); then the recall of a request (:meth:`AgentScopeEngine.recall`, what the
agent asks before each request, for question ``i`` of the first 15: an earlier turn asked
again, found literally) is timed 15 times per session, the sessions alternating, as CPU time;
the late / early ratio of the medians is gated at :data:`GATE` (the recall keeps its shadowed
candidates between requests and bounds its search: the work it counts per request is the same
at both turns, in the row's note). Then whole turns the same way, each a new question (number
10,000 + i, in neither session), report only; then the turns that compact, the same way
(:data:`COMPACTING` rounds, each session playing new questions until one compacts, that turn
timed), gated at :data:`GATE` too: a compaction updates the shadowed texts and their search
index from what it changed (before issue 48's cut each compacting turn tested every original
again and read every candidate's terms again: 2.8× at turn 1,000).
"""

from __future__ import annotations

import gc
import itertools
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

from benchmarks.check_cost import CONFIG
from benchmarks.common import Row, cpu_and_wall, spread
from benchmarks.turns import question
from harness.agent import Agent
from harness.compaction.agentscope.engine import AgentScopeEngine
from harness.compaction.factory import make_engine
from harness.compaction.guards.recall import RecallConfig, RecallRecord
from harness.messages import Message, ToolCall
from harness.model import ChatRequest
from harness.store.eventlog import EventLog, EventLogHistory
from harness.testing import FunctionModel
from harness.tools import Tool

__all__ = ["rows"]

TIMED = 15
GATE = 2.0
"""The recall per request, and a compacting turn, at the late turn against turn 50, CPU medians
(enforced)."""
COMPACTING = 9
"""Compacting turns timed per session (about one turn in 16 compacts here; ``--quick``: 5, so
that the turn-50 session is still far younger than the late one at its last)."""
_CALLS = itertools.count()
_NEW = itertools.count(20_000)
"""Question numbers said in neither session (the compacting turns')."""
RECALLING = replace(
    CONFIG,
    trigger_messages=0,
    trigger_tokens=1_500,
    keep_messages=0,
    keep_tokens=400,
    recall=RecallConfig(budget_tokens=200, top_k=3),
)


def _reply(request: ChatRequest) -> Message:
    if request.purpose == "summary":
        return Message.assistant("bookings confirmed so far; prices as quoted")
    last = request.messages[-1]
    if last.role == "user":
        call = ToolCall(f"call_{next(_CALLS)}", "lookup", '{"booking": "BK-1"}')
        return Message.assistant("", [call])
    return Message.assistant("confirmed, 已确认")


def _session(folder: Path, turns: int) -> tuple[Agent, AgentScopeEngine]:
    history = EventLogHistory(EventLog.open(folder / "s.jsonl", durability="per-turn"))
    model = FunctionModel(_reply)
    lookup = Tool.from_function(lambda booking: f"{booking}: 每柜 USD 2000", name="lookup")
    engine = make_engine(RECALLING, model, history=history, summary_model=model)
    assert isinstance(engine, AgentScopeEngine)
    agent = Agent(model, "system", [lookup], engine=engine, history=history)
    for turn in range(turns):
        agent.call(question(turn))
    return agent, engine


Session = tuple[Agent, AgentScopeEngine]


def _timed(sessions: list[Session], call: Callable[[Session, int], object]) -> list[list[float]]:
    """CPU seconds of ``call(session, i)`` for i < :data:`TIMED`, the sessions alternating."""
    taken: list[list[float]] = [[] for _ in sessions]
    for i in range(TIMED):
        for session, samples in zip(sessions, taken, strict=True):
            samples.append(cpu_and_wall(partial(call, session, i))[0])
    return taken


def _recall(session: Session, i: int) -> RecallRecord | None:
    agent, engine = session
    return engine.recall(agent.history, question(i))[1]


def _turn(session: Session, i: int) -> None:
    session[0].call(question(10_000 + i))  # a new question: said in neither session


def _compacting(session: Session) -> tuple[float, int]:
    """CPU seconds of the session's next turn that compacts (new questions until one does;
    the garbage collected once before, not per turn: which turn compacts is not known ahead),
    and the work it counted: originals tested against the whole context, and texts scored or
    grouped by the search (``ShadowIndex.work``)."""
    gc.collect()
    shadow = session[1]._shadow
    while True:
        before = shadow.work()
        start = time.process_time()
        result = session[0].call(question(next(_NEW)))
        taken = time.process_time() - start
        if result.compactions:
            after = shadow.work()
            return taken, after[0] - before[0] + after[2] - before[2]


def _compacting_rounds(
    sessions: list[Session], rounds: int
) -> tuple[list[list[float]], list[list[int]]]:
    """:func:`_compacting` of each session, alternated, ``rounds`` rounds: the CPU seconds,
    and the work counted, per session."""
    taken: list[list[float]] = [[] for _ in sessions]
    counted: list[list[int]] = [[] for _ in sessions]
    for _ in range(rounds):
        for session, samples, work in zip(sessions, taken, counted, strict=True):
            cpu, done = _compacting(session)
            samples.append(cpu)
            work.append(done)
    return taken, counted


def _work(session: Session) -> tuple[int, ...]:
    """What one more recall of the session does, counted (``ShadowIndex.work``)."""
    shadow = session[1]._shadow
    before = shadow.work()
    _recall(session, TIMED)
    return tuple(b - a for a, b in zip(before, shadow.work(), strict=True))


def _paired(early: list[float], late: list[float]) -> str:
    """The spread of the rounds' own ratios (each round times both sessions back to back)."""
    ratios = sorted(b / a for a, b in zip(early, late, strict=True) if a > 0)
    return f"paired ratios {ratios[0]:.2f}-{ratios[-1]:.2f}" if ratios else "no paired ratio"


def rows(quick: bool) -> list[Row]:
    late = 200 if quick else 1_000
    with tempfile.TemporaryDirectory() as tmp:
        sessions = []
        for turns in (50, late):
            (Path(tmp) / str(turns)).mkdir()
            sessions.append(_session(Path(tmp) / str(turns), turns))
        shadowed = [getattr(_recall(s, 0), "shadowed", 0) for s in sessions]
        work = [_work(s) for s in sessions]
        recalls = _timed(sessions, _recall)
        turns_taken = _timed(sessions, _turn)
        compacting, compact_work = _compacting_rounds(sessions, 5 if quick else COMPACTING)
    early_r, late_r = map(spread, recalls)
    early_c, late_c = map(spread, compacting)
    early_t, late_t = map(spread, turns_taken)
    what = f"turn {late} / turn 50, CPU median"
    counted = (
        "; one request's work (originals tested, lookups for texts said again, texts scored, "
        "texts checked literally): "
        f"turn 50 {work[0]}, turn {late} {work[1]}"
    )
    return [
        Row("recall", "recall per request at turn 50, CPU median", early_r.median * 1e3, "ms",
            note=f"{shadowed[0]:,} shadowed texts searched; min {early_r.low * 1e3:.2f} ms, "
            f"p95 {early_r.p95 * 1e3:.2f} ms"),
        Row("recall", f"recall per request at turn {late}, CPU median", late_r.median * 1e3, "ms",
            note=f"{shadowed[1]:,} shadowed texts searched; min {late_r.low * 1e3:.2f} ms, "
            f"p95 {late_r.p95 * 1e3:.2f} ms"),
        Row("recall", f"recall per request, {what}", late_r.median / early_r.median, gate=GATE,
            note=f"{TIMED} alternated rounds; p95 {late_r.p95 / early_r.p95:.2f}×; "
            f"{_paired(*recalls)}{counted}"),
        Row("recall", f"agent turn with the recall, {what}", late_t.median / early_t.median,
            note=f"turn 50 {early_t.median * 1e3:.2f} ms, turn {late} "
            f"{late_t.median * 1e3:.2f} ms, p95 {early_t.p95 * 1e3:.2f} / "
            f"{late_t.p95 * 1e3:.2f} ms; new questions; report only (the compacting turns: "
            "next row)"),
        Row("recall", f"agent turn that compacts, {what}", late_c.median / early_c.median,
            gate=GATE,
            note=f"{len(compacting[0])} alternated rounds; turn 50 {early_c.median * 1e3:.2f} ms "
            f"(p95 {early_c.p95 * 1e3:.2f}), turn {late} {late_c.median * 1e3:.2f} ms "
            f"(p95 {late_c.p95 * 1e3:.2f}); p95 {late_c.p95 / early_c.p95:.2f}×; "
            f"{_paired(*compacting)}"),
        _counted_row(compact_work, late),
    ]  # fmt: skip


def _counted_row(counted: list[list[int]], late: int) -> Row:
    """The work a compacting turn counts, late / turn 50 (a count: as gated in ``--quick``,
    where the late turn is too early for the time to tell a search of every original)."""
    early, later = (statistics.median(c) for c in counted)
    return Row("recall", f"work of a turn that compacts, turn {late} / turn 50, median",
               later / max(early, 1), gate=GATE,
               note=f"originals tested against the whole context and texts scored or grouped: "
               f"turn 50 {early:g}, turn {late} {later:g} (each round: {counted[0]} / "
               f"{counted[1]})")  # fmt: skip
