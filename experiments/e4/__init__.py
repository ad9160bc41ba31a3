"""E4: one recorded conversation compacted once by each engine, side by side.

A real model (replayed from ``cassettes/E4/compactions.json``, recorded through llama.cpp's
``llama-server`` with its prompt cache on, so the server reports cached prompt tokens) holds a
five-turn freight conversation with four planted facts: a code word, an order id, a number and
a path. One turn carries a 40-row packing list, so the history is long enough that a summary
can be smaller than what it replaces (the DSH engine refuses a summary that is not).
The conversation goes into an append-only event log. Two copies of that log are then
compacted once each, keeping the same tail (the last two messages):

* **AgentScope** (:mod:`harness.compaction.agentscope`): the prefix is rendered into one user
  message
  inside a summariser prompt, and the summary replaces the prefix;
* **DSH** (:mod:`harness.compaction.dsh`): the last request's system prompt + the shadowed
  messages as they were sent + the directive as the final user message; four events on the log.

Each summary call directly follows the last conversation request (the request is sent once
more before the second engine's call, so both find the same warm cache). Prefix reuse is
computed from the request bodies exactly as the client sends them.

Used by other experiments: X-GATE re-runs :func:`measure` with the gate on and checks
:data:`FACTS`; X-COST replays :func:`run`.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.e4 import claims as e4_claims
from experiments.e4.claims import CAPPED_MODEL
from experiments.e4.view import (
    ConversationRow,
    E4View,
    EngineRun,
    LogEventRow,
    ReplacedRange,
    SummaryEvent,
    SurfaceOp,
)
from harness import Agent, ChatClient, CompactionConfig, DshConfig
from harness.compaction.agentscope import Compactor, resolve_thresholds
from harness.compaction.dsh import DshEngine, price_message
from harness.errors import SummaryError
from harness.messages import validate_pairing
from harness.meter.pricers import estimate_tokens
from harness.model import ChatModel, ChatRequest, ChatResponse
from harness.store.eventlog import EventLog, EventLogHistory
from lab import (
    ARTICLE_METER,
    Experiment,
    ExperimentResult,
    RunSettings,
    recorded_result,
    view_header,
)

__all__ = ["CAPPED_MODEL", "EXPERIMENT", "FACTS", "TURNS", "measure", "run"]

SYSTEM_PROMPT = "你是货代业务助手。回答简洁。"


def _packing_list() -> str:
    rows = [
        f"{i:02d} | CTN-{1000 + i} | 电子元件 型号 EC-{200 + i * 7} | {12 + i % 5} 箱 | "
        f"毛重 {180 + i * 3} kg | 体积 {1.2 + (i % 4) * 0.3:.1f} m³"
        for i in range(1, 41)
    ]
    return "\n".join(rows)


TURNS = (
    "这票货的暗号定为“蓝鲸”，请记住。只回复“收到”。",
    "订舱单号是 SO-2026-0417，货值 38650 美元。下面是装箱明细，请核对箱数合计：\n"
    + _packing_list(),
    "舱单文件放在 /data/exports/hamburg/manifest-1104.csv，请确认路径。",
    "这票货走汉堡港，截关日是 11 月 4 日。还需要准备哪些单证？",
    "请用一句话总结目前的进展。",
)
FACTS = {
    "code word": "蓝鲸",
    "order id": "SO-2026-0417",
    "number": "38650",
    "path": "/data/exports/hamburg/manifest-1104.csv",
}
KEEP = 2


class Spy:
    """Records every request and response passing to the model."""

    def __init__(self, model: ChatModel) -> None:
        self.model = model
        self.calls: list[tuple[ChatRequest, ChatResponse]] = []

    @property
    def model_name(self) -> str:
        return self.model.model_name

    def complete(self, request: ChatRequest) -> ChatResponse:
        response = self.model.complete(request)
        self.calls.append((request, response))
        return response


def _body(client: ChatModel, request: ChatRequest) -> bytes:
    if isinstance(client, ChatClient):
        body = client.build_body(request)
    else:  # a scripted model in tests: the wire messages are what matters
        body = {"messages": [m.to_wire() for m in request.messages]}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def prefix_reuse(previous: bytes, summary: bytes) -> float:
    """The share of the summary request's bytes that repeat the previous request's start."""
    common = 0
    for a, b in zip(previous, summary, strict=False):
        if a != b:
            break
        common += 1
    return common / len(summary) if summary else 0.0


def _converse(spy: Spy, path: Path) -> tuple[EventLog, ChatRequest]:
    log = EventLog(path)
    agent = Agent(spy, SYSTEM_PROMPT, history=EventLogHistory(log))
    for turn in TURNS:
        agent.call(turn)
    last_request = spy.calls[-1][0]
    # The header of that request: its system prompt (no tools, no reference material here).
    return log, dataclasses.replace(last_request, messages=last_request.messages[:1])


def _op(surface_op: Any) -> SurfaceOp | None:
    if surface_op is None:
        return None
    if isinstance(surface_op, str):
        return SurfaceOp(surface_op)
    return SurfaceOp(**dict(surface_op))


def _facts_in(text: str) -> tuple[str, ...]:
    return tuple(name for name, value in FACTS.items() if value in text)


@dataclass(frozen=True)
class _Compacted:
    """What one engine's compaction left: its log, summary and the events it appended."""

    log: EventLog
    summary: str
    events: tuple[LogEventRow, ...]
    range: ReplacedRange | None = None
    error: str | None = None
    summary_event: SummaryEvent | None = None


def _engine_run(
    name: str, spy: Spy, client: ChatModel, before: list[Any], done: _Compacted
) -> EngineRun:
    previous, (summary_request, summary_response) = spy.calls[-2][0], spy.calls[-1]
    after = done.log.messages()
    usage = summary_response.usage
    log_path = done.log.path
    return EngineRun(
        engine=name,
        messages_before=len(before),
        messages_after=len(after),
        estimated_tokens_before=estimate_tokens(before),
        estimated_tokens_after=estimate_tokens(after),
        dsh_meter_before=sum(price_message(m) for m in before),
        dsh_meter_after=sum(price_message(m) for m in after),
        summary=done.summary,
        summary_chars=len(done.summary),
        summary_request_messages=len(summary_request.messages),
        prefix_reuse=round(
            prefix_reuse(_body(client, previous), _body(client, summary_request)), 4
        ),
        summary_prompt_tokens=usage.prompt_tokens if usage else None,
        summary_cached_tokens=usage.cached_tokens if usage else None,
        facts_kept=_facts_in(done.summary),
        surface_summary=next((m.content for m in after if m.is_summary), None),
        replay_equals_live=EventLog.replay(log_path).messages() == after if log_path else None,
        replay_as_recorded=_replay_as_recorded(log_path, summary_response, before),
        pairing_valid=_valid(after),
        events=done.events,
        range=done.range,
        error=done.error,
        summary_event=done.summary_event,
    )


def _replay_as_recorded(
    log_path: Path | None, answered: ChatResponse, before: list[Any]
) -> bool | None:
    """The log replayed from zero against what the recording holds: the summary the model
    answered, then the last :data:`KEEP` messages of the conversation before the compaction."""
    if log_path is None:
        return None
    replayed = EventLog.replay(log_path).messages()
    head, tail = replayed[:1], replayed[1:]
    summary = (answered.message.content or "").strip()
    holds_summary = bool(head) and head[0].is_summary and bool(summary)
    return holds_summary and summary in head[0].content and tail == before[-KEEP:]


def _valid(messages: list[Any]) -> bool:
    try:
        validate_pairing(messages)
    except Exception:
        return False
    return True


def measure(settings: RunSettings) -> E4View:
    """Replay (or record) E4's conversation and compact it once with each engine."""
    with tempfile.TemporaryDirectory() as tmp, settings.model("E4", "compactions") as cassette:
        spy = Spy(cassette.client)
        root = Path(tmp)
        log, header = _converse(spy, root / "conversation.jsonl")
        last_request = spy.calls[-1][0]
        before = log.messages()
        for copy in ("dsh.jsonl", "agentscope.jsonl"):
            shutil.copyfile(root / "conversation.jsonl", root / copy)
        dsh = _compact_dsh(spy, root / "dsh.jsonl", header, before, settings)
        dsh_run = _engine_run("dsh", spy, cassette.client, before, dsh)
        spy.complete(last_request)  # warm the server's prompt cache again, as before the first
        agentscope = _compact_agentscope(spy, root / "agentscope.jsonl", settings)
        as_run = _engine_run("agentscope", spy, cassette.client, before, agentscope)
    return E4View(
        **view_header("E4", cassette),
        system_prompt=SYSTEM_PROMPT,
        turns=TURNS,
        facts=dict(FACTS),
        keep=KEEP,
        conversation=tuple(
            ConversationRow(i, m.role, m.content or "") for i, m in enumerate(before)
        ),
        engines=(as_run, dsh_run),
    )


def _compact_dsh(
    spy: Spy, path: Path, header: ChatRequest, before: list[Any], settings: RunSettings
) -> _Compacted:
    log = EventLog.open(path)
    first, nodes = len(log.events), list(log.node_seqs)
    tail_tokens = sum(price_message(m) for m in before[-KEEP:])
    config = settings.configure(DshConfig(meter="dsh"))  # dsh's own meter, as read
    engine = DshEngine(log, spy, config)
    try:
        result = engine.compact_now(header, retain_tokens=tail_tokens)
    except SummaryError as exc:  # the engine closed the bracket with the error; report it
        summary = spy.calls[-1][1].message.content
        return _Compacted(log, summary, _events(log, first, nodes), error=str(exc))
    if result is None:
        raise AssertionError("E4: the DSH engine found nothing to compact")
    checkpoint = log.events[result.checkpoint_seq]
    summary_data = log.events[result.summary_seq].data
    # the range as the log's replace event names it, not as the engine reports it
    start, end = _positions(checkpoint, nodes) or (-1, -1)
    return _Compacted(
        log,
        result.event.summary,
        _events(log, first, nodes),
        range=ReplacedRange(
            start=start,
            end=end,
            kept=len(nodes) - end - 1,
            sources_cover_shadowed=set(checkpoint.source_event_seqs)
            >= {result.start_seq, result.summary_seq},
        ),
        summary_event=SummaryEvent(
            tuple(sorted(summary_data)),
            summary_data.get("provider"),
            summary_data.get("model"),
            _cut(summary_data) or spy.calls[-1][1].finish_reason == "length",
        ),
    )


def _cut(summary_data: Mapping[str, object]) -> bool:
    """Whether the committed summary's completion reached its max_tokens, read from the
    event's usage (the caller also reads the recorded finish reason, not the one the engine
    saw)."""
    usage, cap = summary_data.get("usage"), summary_data.get("max_tokens")
    done = usage.get("completion_tokens") if isinstance(usage, dict) else None
    return isinstance(done, int) and isinstance(cap, int) and done >= cap


def _events(
    log: EventLog, first: int, nodes: list[int], *, sources: bool = True
) -> tuple[LogEventRow, ...]:
    return tuple(
        LogEventRow(
            seq=e.seq,
            type=e.type,
            surface_op=_op(e.surface_op),
            sources=tuple(e.source_event_seqs) if sources else None,
            positions=_positions(e, nodes),
        )
        for e in log.events[first:]
    )


def _positions(event: Any, nodes: list[int]) -> tuple[int, int] | None:
    """Where the seqs a replace names sat on the surface before the compaction."""
    span = event.replace_range
    if span is None or span[0] not in nodes or span[1] not in nodes:
        return None
    return (nodes.index(span[0]), nodes.index(span[1]))


def _compact_agentscope(spy: Spy, path: Path, settings: RunSettings) -> _Compacted:
    log = EventLog.open(path)
    history = EventLogHistory(log)
    config = settings.configure(CompactionConfig.count_only(3, KEEP, meter=ARTICLE_METER))
    compactor = Compactor(config, resolve_thresholds(config, spy.model_name), spy)
    compaction = compactor.force(history.messages())
    if compaction is None:
        raise AssertionError("E4: the AgentScope engine found nothing to compact")
    first, nodes = len(log.events), list(log.node_seqs)
    history.apply_compaction(compaction)
    events = _events(log, first, nodes, sources=False)
    return _Compacted(log, compaction.event.summary, events)


def run(settings: RunSettings) -> ExperimentResult:
    return recorded_result(measure(settings), e4_claims.claims)


EXPERIMENT = Experiment.listed(
    __name__, run, needs_cassettes=True, version=1, local_server="llama-server"
)
