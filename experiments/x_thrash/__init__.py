"""X-THRASH (ctxlab's own, no seed states it): compaction thrash under AgentScope's defaults,
with and without ctxlab's thrash guard (:mod:`harness.compaction.guards.thrash`).

A scripted model (named as such: ``scripted``) plays a long freight session: each turn the user
asks about an order, the model looks it up with a tool and answers, so a turn is four messages
and two requests. The compaction config is AgentScope 2.0.3's default (trigger 50 messages or
window − 20,000 tokens, keepTokens dynamic = 8,000 tokens, AgentScope's estimator) for a model
with a 128,000-token window (``deepseek-chat``): the 8,000-token tail holds about 110 messages,
more than the 50 that trigger. Without a guard every request compacts, each time summarising
the few messages the last request added; with the guard those compactions are not run, and the
token trigger still compacts when the context really fills. A second, short session (count mode,
trigger 4 / keep 1) refills after every compaction and shows the refill bound's error.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace

from experiments.x_thrash.claims import REFILL_TRIGGER, claims
from experiments.x_thrash.view import (
    GuardConfigRecord,
    GuardRecord,
    RefillRun,
    SessionRun,
    XThrashView,
)
from harness import Agent, CompactionConfig, FunctionModel, Message, Tool, ToolCall, make_engine
from harness.compaction.agentscope import resolve_thresholds
from harness.compaction.guards.thrash import ThrashConfig, ThrashRecord
from harness.errors import CompactionThrashError, PairingError
from harness.messages import validate_pairing
from harness.meter.pricers import estimate_tokens
from harness.meter.windows import CTXLAB_WINDOWS
from harness.model import ChatRequest
from lab import ARTICLE_METER, Experiment, ExperimentResult, RunSettings, to_data

__all__ = ["CONFIG", "EXPERIMENT", "MODEL", "TURNS", "measure", "run"]

SOURCE = "scripted"
MODEL = "deepseek-chat"
TURNS = 600
CONFIG = CompactionConfig(meter=ARTICLE_METER)
"""AgentScope 2.0.3's defaults, priced by its own estimator."""
GUARD = ThrashConfig()
SYSTEM_PROMPT = "你是货代业务助手。用 lookup_order 查询订单，然后简洁回答。"
SUMMARY = "## SESSION INTENT\n跟踪客户的订单状态。\n\n## SUMMARY\n已逐单查询并答复。"
CARRIERS = ("COSCO", "MAERSK", "MSC", "CMA CGM", "EVERGREEN")


def _order(n: int) -> str:
    return f"SO-2026-{n:04d}"


def lookup_order(order_id: str) -> str:
    """Look up an order's shipping status."""
    n = int(order_id.rsplit("-", 1)[-1])
    record = {
        "order_id": order_id,
        "carrier": CARRIERS[n % len(CARRIERS)],
        "route": "CNSHA-DEHAM",
        "containers": 1 + n % 3,
        "status": "已订舱" if n % 2 else "待放舱",
        "etd": f"2026-11-{1 + n % 28:02d}",
        "cutoff": f"2026-10-{1 + n % 28:02d}",
        "documents": ["商业发票", "装箱单", "提单样本", "VGM 声明", "舱单", "原产地证"],
        "note": "截关前请提交 VGM 与舱单；危险品需另行申报；改港、改船需在截关前 48 小时提出，"
        "逾期产生的改单费、滞箱费由订舱方承担。",
    }
    return json.dumps(record, ensure_ascii=False)


TOOL = Tool.from_function(lookup_order)


def _question(n: int) -> str:
    return f"第 {n} 单：请查一下订单 {_order(n)} 现在的状态、船期和截关日，告诉我还要准备什么。"


def _reply(request: ChatRequest) -> str | Message:
    """The scripted model: a fixed summary; a lookup for a question; an answer to a result."""
    if request.purpose == "summary":
        return SUMMARY
    last = request.messages[-1]
    if last.role == "user":
        order = last.content.split("订单 ", 1)[1].split(" ", 1)[0]
        call = ToolCall(f"call_{order}", "lookup_order", json.dumps({"order_id": order}))
        return Message.assistant("", [call])
    record = json.loads(last.content)
    return (
        f"订单 {record['order_id']} {record['status']}，{record['carrier']} 船期 {record['etd']}，"
        f"截关 {record['cutoff']}。请在截关前提交 VGM 和舱单。"
    )


class _GuardLines(logging.Filter):
    """Counts the thrash guard's log lines; what the logger would not have shown before the
    count lowered its level stays unshown."""

    def __init__(self, shown_from: int) -> None:
        super().__init__()
        self.shown_from = shown_from
        self.lines = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if "thrash guard" in record.getMessage():
            self.lines += 1
        return record.levelno >= self.shown_from


@contextmanager
def _guard_lines() -> Iterator[_GuardLines]:
    logger = logging.getLogger("harness.compaction")
    level = logger.level
    counter = _GuardLines(logger.getEffectiveLevel())
    logger.addFilter(counter)
    logger.setLevel(logging.INFO)
    try:
        yield counter
    finally:
        logger.removeFilter(counter)
        logger.setLevel(level)


def _paired(messages: Sequence[Message]) -> bool:
    try:
        validate_pairing(list(messages))
    except PairingError:
        return False
    return True


def _session(config: CompactionConfig, turns: int) -> SessionRun:
    """Run ``turns`` turns under ``config``; what compaction did."""
    model = FunctionModel(_reply, model_name=MODEL)
    engine = make_engine(config, model)
    agent = Agent(model, SYSTEM_PROMPT, tools=[TOOL], engine=engine)
    triggers: Counter[str] = Counter()
    requests = largest = sent = 0
    with _guard_lines() as lines:
        for n in range(1, turns + 1):
            result = agent.call(_question(n))
            requests += len(result.requests)
            triggers.update(c.trigger for c in result.compactions)
            metered = [r.metered_tokens or 0 for r in result.requests]
            largest, sent = max([largest, *metered]), sent + sum(metered)
    # every request the model got, not only the context at the end of a turn: a compaction
    # that splits a pair mid-turn is sent broken and mended by the turn's end
    broken = sum(not _paired(r.messages) for r in model.requests if r.purpose != "summary")
    guard = engine.thrash_record
    compactions = sum(triggers.values())
    summaries = sum(r.purpose == "summary" for r in model.requests)
    summary_tokens = sum(
        estimate_tokens(r.messages) for r in model.requests if r.purpose == "summary"
    )
    return SessionRun(
        turns=turns,
        requests=requests,
        compactions=compactions,
        summary_calls=summaries,
        compactions_per_100_turns=round(100 * compactions / turns, 1),
        summary_calls_per_100_turns=round(100 * summaries / turns, 1),
        triggers=dict(sorted(triggers.items())),
        largest_request_tokens=largest,
        agent_prompt_tokens=sent,
        summary_prompt_tokens=summary_tokens,
        prompt_tokens_per_100_turns=round(100 * (sent + summary_tokens) / turns),
        context_messages_at_end=len(agent.context),
        pairing_errors=broken,
        guard=None if guard is None else _guard_record(guard, lines.lines),
    )


def _guard_record(guard: ThrashRecord, lines: int) -> GuardRecord:
    """The engine's record of its guard, with the log lines the guard wrote."""
    return GuardRecord(
        skipped=guard.skipped,
        log_lines=lines,
        allowed=guard.allowed,
        refills=guard.refills,
        last_skip=guard.last_skip,
    )


REFILL_CONFIG = CompactionConfig(
    trigger_messages=REFILL_TRIGGER,
    keep_messages=1,
    keep_tokens=0,
    trigger_tokens=None,
    prune=None,
    meter=ARTICLE_METER,
    thrash=GUARD,
)


def _refill_session(calls: int = 20) -> RefillRun:
    """Count mode, trigger 4 / keep 1: the context refills right after every compaction."""
    model = FunctionModel(lambda r: "SUMMARY" if r.purpose == "summary" else "好的", MODEL)
    agent = Agent(model, SYSTEM_PROMPT, engine=make_engine(REFILL_CONFIG, model))
    compactions, stopped_at, error = 0, None, None
    for n in range(1, calls + 1):
        try:
            compactions += len(agent.call(f"第 {n} 句").compactions)
        except CompactionThrashError as exc:
            stopped_at, error = n, f"{type(exc).__name__}: {exc}"
            break
    return RefillRun(compactions, stopped_at, error)


def measure(turns: int = TURNS) -> XThrashView:
    """Both sessions, with and without the guard."""
    thresholds = resolve_thresholds(CONFIG, MODEL, CTXLAB_WINDOWS)
    return XThrashView(
        experiment="X-THRASH",
        source=SOURCE,
        model=MODEL,
        thresholds=thresholds.explanation,
        trigger_messages=thresholds.trigger_messages,
        trigger_tokens=thresholds.trigger_tokens,
        keep_tokens=thresholds.keep_tokens,
        context_window=thresholds.context_window,
        guard_config=GuardConfigRecord(
            min_removed_fraction=GUARD.min_removed_fraction,
            refill_requests=GUARD.refill_requests,
            max_refills=GUARD.max_refills,
        ),
        without_guard=_session(CONFIG, turns),
        with_guard=_session(replace(CONFIG, thrash=GUARD), turns),
        refill=_refill_session(),
    )


def run(settings: RunSettings) -> ExperimentResult:
    """Run X-THRASH and judge its claims."""
    view = measure()
    return ExperimentResult("X-THRASH", claims(view), to_data(view), SOURCE)


EXPERIMENT = Experiment.listed(
    __name__, run, needs_cassettes=False, version=1, weight=3.0
)  # scripted
