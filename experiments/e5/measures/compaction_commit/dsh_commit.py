"""DeepSeek-Harness's commit and overflow bookkeeping as the seed reads them, run on scripted
event logs: the events one compaction appends (summary and replace back to back, the
``sourceEventSeqs`` chain), stale pricing refused, pruning counted as progress when the summary
stage fails, and the overflow-retry count starting again once an assistant message lands."""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from experiments.e5.measures.dsh_mechanics import HEADER, SEED_CONFIG, SEED_METER, _log, _summariser
from experiments.e5.view.compaction_commit import DshCommit, PruneProgress, RetryReset, Stability
from harness import (
    Agent,
    CompactionError,
    ContextLengthExceededError,
    DshConfig,
    FunctionModel,
    Message,
    Tool,
    ToolCall,
    make_engine,
)
from harness.compaction.dsh import DshEngine, Measurement, select_compactable_range
from harness.errors import ServerError, SurfaceError
from harness.model import ChatRequest, ChatResponse
from harness.store.eventlog import EventLog, EventLogHistory

__all__ = ["measure_dsh_commit"]


def measure_commit(root: Path) -> DshCommit:
    log = _log(root / "commit.jsonl")
    visible = set(log.node_seqs)
    result = DshEngine(log, _summariser(), SEED_CONFIG).compact_now(HEADER)
    assert result is not None  # four turns of 800 characters leave something to compact
    events = [e for e in log.events if e.seq >= result.start_seq]
    by_seq = {e.seq: e for e in events}
    summary = by_seq[result.summary_seq]
    replace = by_seq[result.checkpoint_seq]
    return DshCommit(
        event_types=tuple(e.type for e in events),
        summary_then_replace=replace.seq == summary.seq + 1,
        source_event_seqs=tuple(replace.source_event_seqs or ()),
        expected_sources=_chain_on_the_log(events, visible - set(log.node_seqs)),
        stale_pricing_error=_stale_pricing(log),
    )


def _chain_on_the_log(events: list[Any], shadowed: set[int]) -> tuple[int, ...]:
    """The chain the seed describes, read off the log rather than from what the engine reports:
    the seq of the compaction/start event, of the compaction/summary event (found by their
    types), then every node the surface showed before the compaction and hides after it."""
    start = next((e.seq for e in events if e.type == "compaction/start"), -1)
    summary = next((e.seq for e in events if e.type == "compaction/summary"), -1)
    return (start, summary, *sorted(shadowed))


def _stale_pricing(log: EventLog) -> str:
    """Select with the newest node's price missing: the pricing is an older surface's."""
    nodes = log.node_messages()
    stale = Measurement(0, tuple((seq, 10) for seq, _ in nodes[:-1]))
    try:
        select_compactable_range(nodes, stale, 0)
    except SurfaceError as exc:
        return str(exc)
    return ""


def _late(log: EventLog) -> None:
    log.append_message(Message.user("a late question"))


def measure_stability(root: Path) -> Stability:
    """A message appended to the log while the summary call runs (outside the span): the
    automatic (pressure) path must refuse, the manual path must commit."""
    auto = _log(root / "auto.jsonl")
    busy = DshConfig(context_window=200, meter=SEED_METER)  # pressure is due
    grow = _summariser(on_call=lambda: _late(auto))
    with _quiet():
        DshEngine(auto, grow, busy).compact_if_needed(HEADER)
    ends = [e for e in auto.events if e.type == "compaction/end"]
    manual = _log(root / "manual.jsonl")
    late = _summariser(on_call=lambda: _late(manual))
    committed = DshEngine(manual, late, SEED_CONFIG).compact_now(HEADER) is not None
    return Stability(
        automatic_error=str(ends[0].data.get("error") or "") if ends else "",
        manual_committed=committed,
    )


def _tool_log(path: Path) -> EventLog:
    """Two turns, the first with a 20,000-character tool result (over dsh's prune line)."""
    log = EventLog(path)
    log.append_message(Message.user("look it up"))
    log.append_message(Message.assistant("", [ToolCall("c1", "lookup", "{}")]))
    log.append_message(Message.tool("c1", "r" * 20_000))
    log.append_message(Message.assistant("found it"))
    log.append_message(Message.user("and now?"))
    return log


@contextmanager
def _quiet() -> Iterator[None]:
    """The failing summary stages log warnings that are expected here."""
    quiet = logging.getLogger("harness")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        quiet.setLevel(level)


def _recover(log: EventLog) -> tuple[str, str]:
    def fail(request: ChatRequest) -> str:
        raise ServerError("summary backend down", status_code=503)

    engine = DshEngine(log, FunctionModel(fail, model_name="scripted"), SEED_CONFIG)
    try:
        with _quiet():
            events = engine.recover_overflow(HEADER)
    except CompactionError:
        return "raised", ""
    except SurfaceError as exc:  # the surface itself refused (a broken harness): measured
        return f"refused ({type(exc).__name__})", ""
    return ("retry" if events else "no retry"), (events[0].trigger if events else "")


def measure_prune_progress(root: Path) -> PruneProgress:
    with_prune, trigger = _recover(_tool_log(root / "prunable.jsonl"))
    without_prune, _ = _recover(_log(root / "unprunable.jsonl"))
    return PruneProgress(
        with_prune=with_prune, with_prune_trigger=trigger, without_prune=without_prune
    )


def _twice_overflowing() -> FunctionModel:
    """Overflows on the 1st agent request, asks for a tool on the 2nd, overflows on the 3rd,
    answers on the 4th (summaries always succeed)."""
    agent = {"n": 0}

    def reply(request: ChatRequest) -> ChatResponse:
        if request.purpose == "summary":
            return ChatResponse(Message.assistant("## Primary Request and Intent\n- go"))
        agent["n"] += 1
        if agent["n"] in (1, 3):
            raise ContextLengthExceededError("maximum context length", status_code=400)
        if agent["n"] == 2:
            return ChatResponse(Message.assistant("", [ToolCall("c1", "lookup", "{}")]))
        return ChatResponse(Message.assistant("done"))

    return FunctionModel(reply, model_name="scripted")


def measure_retry_reset(root: Path) -> RetryReset:
    log = _log(root / "retry.jsonl")
    history = EventLogHistory(log)
    model = _twice_overflowing()
    lookup = Tool("lookup", "look it up", {"type": "object", "properties": {}}, lambda: "r")
    agent = Agent(model, "system", [lookup], make_engine(SEED_CONFIG, model, history=history),
                  history=history)  # fmt: skip
    try:
        with _quiet():
            result = agent.call("question " + "x" * 400)
        outcome = "answered"
        recoveries = sum("overflow" in e.trigger for r in result.requests for e in r.compactions)
    except ContextLengthExceededError:
        outcome, recoveries = "raised", -1
    return RetryReset(recoveries=recoveries, outcome=outcome)


def measure_dsh_commit() -> tuple[DshCommit, PruneProgress, RetryReset, Stability]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        return (
            measure_commit(root),
            measure_prune_progress(root),
            measure_retry_reset(root),
            measure_stability(root),
        )
