"""E3: compaction in a real agent, trigger 5 / keep 2, over the article's five code-word rounds.

A real model answers (replayed from the cassette ``cassettes/E3/rounds.json``); memory is off,
no tools are offered, the token trigger is off, and the prefix flush/offload are off, as in the
article. Structural claims (when compaction fires, what it keeps) follow from the harness and
must match; what the model says is reported as it came out and judged by the rules below.

Used by other experiments: X-GATE re-runs :func:`measure` with the gate on and checks
:data:`CODE_WORD`; X-COST replays :func:`run` and reads :data:`CONFIG` and :class:`E3View`;
E5 and X-COST read compactions as :class:`CompactionRow`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from experiments.e3 import claims as e3_claims
from experiments.e3.view import (
    CompactionRow,
    ContextMessage,
    E3Config,
    E3View,
    RoundRow,
    SummaryMessage,
    UsageRecord,
)
from harness import Agent, CallResult, CompactionConfig, make_engine
from harness.compaction.agentscope import PruneConfig
from harness.meter.pricers import estimate_tokens
from harness.model import ChatModel, ChatRequest, ChatResponse
from harness.store.history import StateHistory
from harness.store.statefile import Transcript
from lab import (
    ARTICLE_METER,
    Experiment,
    ExperimentResult,
    RunSettings,
    recorded_result,
    view_header,
)

__all__ = [
    "CODE_WORD",
    "CONFIG",
    "EXPERIMENT",
    "ROUNDS",
    "SYSTEM_PROMPT",
    "CompactionRow",
    "E3View",
    "measure",
    "run",
]

CODE_WORD = e3_claims.CODE_WORD
"""The code word planted in round 1 (X-GATE checks its summaries for it too)."""

SYSTEM_PROMPT = "你是压缩实验的对话助手。回答保持简洁，不要调用任何工具。"

ROUNDS = (
    "记住暗号：夜莺。只回复“收到”。",
    "暗号是什么？",
    "把暗号倒过来念。",
    "第一轮定的暗号是什么？第一轮原话还在你的上下文里吗？",
    "再说一次暗号。",
)

CONFIG = CompactionConfig.count_only(5, 2, prune=PruneConfig(), meter=ARTICLE_METER)


def _round_record(number: int, user: str, result: CallResult, agent: Agent) -> RoundRow:
    request = result.requests[0]
    event = request.compaction
    usage = request.usage
    return RoundRow(
        round=number,
        user=user,
        answer=result.text,
        visible_before=result.context_before,
        visible_after=result.context_after,
        context_at_request=request.context_messages,
        estimated_tokens_after=estimate_tokens(agent.context),
        usage=UsageRecord(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens)
        if usage
        else None,
        compaction=CompactionRow.of(event) if event else None,
        context_after=tuple(
            ContextMessage(m.role, m.kind, m.name, m.content) for m in agent.context
        ),
    )


class SummaryRequests:
    """Passes requests through to ``model`` and keeps the text of each summary request."""

    def __init__(self, model: ChatModel) -> None:
        self.model = model  # harness.model.provider_of looks through wrappers by this name
        self.texts: list[str] = []

    @property
    def model_name(self) -> str:
        return self.model.model_name

    def complete(self, request: ChatRequest) -> ChatResponse:
        if request.purpose == "summary":
            self.texts.append("\n".join(m.content for m in request.messages))
        return self.model.complete(request)


def measure(settings: RunSettings) -> E3View:
    """Play the five rounds. The history keeps its session log (the transcript, as AgentScope's
    session keeps one) in a temporary folder; it changes no request."""
    with tempfile.TemporaryDirectory() as tmp, settings.model("E3", "rounds") as cassette:
        summariser = SummaryRequests(cassette.client)
        engine = make_engine(settings.configure(CONFIG), summariser)
        history = StateHistory("e3", transcript=Transcript(Path(tmp) / "e3.jsonl"))
        agent = Agent(cassette.client, SYSTEM_PROMPT, engine=engine, history=history)
        rounds = []
        for number, user in enumerate(ROUNDS, start=1):
            result = agent.call(user)
            rounds.append(_round_record(number, user, result, agent))
            if settings.mode == "record":
                settings.progress(f"    round {number}: {len(agent.context)} messages in context")
        logged = tuple(
            o.message.content
            for o in history.originals()
            if o.message.role == "user" and not o.message.is_summary
        )
    summary = next((m for m in agent.context if m.is_summary), None)
    return E3View(
        **view_header("E3", cassette),
        system_prompt=SYSTEM_PROMPT,
        config=E3Config(
            trigger_messages=CONFIG.trigger_messages,
            trigger_tokens=None,
            keep_messages=CONFIG.keep_messages,
            keep_tokens=0,
            memory="off",
            tools="none",
        ),
        rounds=tuple(rounds),
        session_log_users=logged,
        summary_requests=tuple(summariser.texts),
        final_summary_message=SummaryMessage(summary.role, summary.name, summary.content)
        if summary
        else None,
    )


def run(settings: RunSettings) -> ExperimentResult:
    return recorded_result(measure(settings), e3_claims.claims)


EXPERIMENT = Experiment.listed(
    __name__,
    run,
    needs_cassettes=True,
    version=1,
    own_variants=("gate",),  # a gated summary changes what the later rounds send
)
