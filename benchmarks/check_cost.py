"""The check before a request at 1K/10K/100K messages, against a full recount.

AgentScope engine: a history of N messages, one message appended before each request, then
``AgentScopeEngine.before_request`` (triggers far away, the prune on) is timed, on the turn the
agent loop builds (``Turn.of_history``: the store's live list is the turn's source); the full
recount is AgentScope's estimate over the whole request, which is what the check cost before the
meter kept running prices. DSH engine: the same over an in-memory event log with
``DshEngine.compact_if_needed`` (threshold far away); its recount is dsh's ``measure`` over the
parsed surface.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

from benchmarks.common import Row, timed
from harness.compaction.agentscope import CompactionConfig, Compactor, resolve_thresholds
from harness.compaction.agentscope.engine import AgentScopeEngine
from harness.compaction.dsh import DshConfig, DshEngine
from harness.compaction.dsh.selection import measure
from harness.compaction.engine import Turn
from harness.messages import Message
from harness.meter.pricers import estimate_tokens
from harness.model import ChatRequest
from harness.store.eventlog import EventLog
from harness.store.history import StateHistory
from harness.testing import ScriptedModel

__all__ = ["rows"]

SYSTEM = Message.system("You are the benchmark's assistant. 你是基准测试的助手。")
CONFIG = CompactionConfig(
    trigger_messages=0,
    trigger_tokens=10**12,
    keep_messages=20,
    keep_tokens=0,
    flush_before_compact=False,
    offload_before_compact=False,
)


def conversation(count: int) -> list[Message]:
    return [
        Message.user(f"question {i}: 上海港 booking BK-{i}")
        if i % 2 == 0
        else Message.assistant(f"answer {i}: confirmed, 每柜 USD {2000 + i}")
        for i in range(count)
    ]


Step = Callable[[], tuple[float, float]]
"""Append one message, then time the check and the full recount."""


def _agentscope(size: int) -> Step:
    history = StateHistory("bench")
    history.append(conversation(size))
    thresholds = resolve_thresholds(CONFIG, "bench-model")
    engine = AgentScopeEngine(Compactor(CONFIG, thresholds, ScriptedModel([])))
    header = ChatRequest(messages=(SYSTEM,))
    engine.before_request(history, Turn.of_history(header, history))

    def step() -> tuple[float, float]:
        history.append([Message.user("next")])
        turn = Turn.of_history(header, history)
        check = timed(lambda: engine.before_request(history, turn))
        return check, timed(lambda: estimate_tokens(turn.request.messages))

    return step


def _dsh(size: int) -> Step:
    log = EventLog()
    for message in conversation(size):
        log.append_message(message)
    engine = DshEngine(log, ScriptedModel([]), DshConfig(context_window=10**12))
    header = ChatRequest(messages=(SYSTEM,))
    engine.compact_if_needed(header)

    def step() -> tuple[float, float]:
        log.append_message(Message.user("next"))
        check = timed(lambda: engine.compact_if_needed(header))
        return check, timed(lambda: measure(header, log.node_messages()))

    return step


def _interleaved(setup: Callable[[int], Step], sizes: list[int]) -> dict[int, tuple[float, float]]:
    """The sizes' steps run in turn, so load on the machine falls on all of them alike."""
    steps = {size: setup(size) for size in sizes}
    samples: dict[int, list[tuple[float, float]]] = {size: [] for size in sizes}
    for _ in range(15 if sizes[-1] < 50_000 else 7):
        for size in sizes:
            samples[size].append(steps[size]())
    return {
        size: (
            statistics.median(c for c, _ in values),
            statistics.median(r for _, r in values),
        )
        for size, values in samples.items()
    }


def _section(engine: str, setup: Callable[[int], Step], sizes: list[int]) -> list[Row]:
    measured = _interleaved(setup, sizes)
    base, _ = measured[sizes[0]]
    out = []
    for size in sizes:
        check, recount = measured[size]
        out.append(Row("check cost", f"{engine}: check at {size:,} messages", check * 1e6, "µs"))
        out.append(
            Row("check cost", f"{engine}: full recount / check at {size:,}", recount / check)
        )
    for size in sizes[1:]:
        limit = 2.0 if size == sizes[0] * 10 else None
        out.append(
            Row(
                "check cost",
                f"{engine}: check at {size:,} / at {sizes[0]:,}",
                measured[size][0] / base,
                gate=limit,
            )
        )
    return out


def rows(quick: bool) -> list[Row]:
    sizes = [1_000, 10_000] if quick else [1_000, 10_000, 100_000]
    return _section("AgentScope engine", _agentscope, sizes) + _section("DSH engine", _dsh, sizes)
