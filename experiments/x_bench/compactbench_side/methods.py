"""ctxlab's engines as CompactBench compactors (CompactBench 0.1.0's ``Compactor`` interface).

Each method keeps, per case, the context its engine left after the previous cycle; a cycle
appends the turns it has not seen yet (CompactBench's continuation turns), compacts by the
engine's own rules at X-BENCH's budget for a conversation of that size
(:func:`~experiments.x_bench.conditions.budget_for`: trigger 40 % of its tokens, tail 30 % of
that), and hands over that context as the artifact's ``summaryText``: the summary message as
written, then every kept message as ``ROLE: text``, CompactBench's own transcript rendering.
The structured state stays empty: these engines write none. The summary calls go through the
model of the ``ctxlab`` provider (:mod:`.provider`).

CompactBench caps ``summaryText`` at 8,000 characters: a longer context keeps its newest 8,000
and says so in the artifact's ``warnings`` (the scores then count what a user of the engine
would not lose; the table reports how many artifacts were cut).

An engine that refuses a compaction (:class:`~harness.errors.SummaryError`: DSH's summary not
smaller than the span it would replace, a summary cut at ``max_tokens`` or empty) leaves its
context as it stood, as it does for a user: that context is handed over, the artifact's
``warnings`` and ``methodMetadata["refused"]`` say why, and one line on stderr says so. The run
goes on; before, the refusal ended the whole CompactBench run.

The runner loads a method by ``<path>:<ClassName>`` (:data:`METHODS` gives each), so this module
imports CompactBench at the top and is imported only when a CompactBench run asks for it.
"""

from __future__ import annotations

import sys
from typing import Any, ClassVar

from compactbench.compactors import Compactor
from compactbench.contracts import CompactionArtifact, StructuredState, Transcript

from experiments.x_bench.compactbench_side.provider import chat_model_of
from experiments.x_bench.conditions import (
    Budget,
    agentscope_config,
    budget_for,
    ctxlab_config,
    dsh_config,
)
from harness import Message, make_engine
from harness.errors import SummaryError
from harness.meter.pricers import estimate_tokens
from harness.model import ChatModel, ChatRequest
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.history import History, StateHistory

__all__ = [
    "SUMMARY_TEXT_LIMIT",
    "AgentScopeMethod",
    "CtxlabMethod",
    "DshMethod",
    "EngineMethod",
    "render_context",
]

SUMMARY_TEXT_LIMIT = 8_000
"""CompactBench 0.1.0's cap on ``summaryText`` (``contracts/artifact.py``)."""


def _message(turn: Any) -> Message:
    """A CompactBench turn as a ctxlab message (a system turn is a user message that says so)."""
    role = str(turn.role.value)
    if role == "assistant":
        return Message.assistant(turn.content)
    if role == "system":
        return Message.user(f"SYSTEM: {turn.content}")
    return Message.user(turn.content)


def render_context(messages: list[Message]) -> str:
    """The context as CompactBench renders a transcript: a summary as written, else
    ``ROLE: text``, blocks separated by a blank line."""
    blocks = []
    for message in messages:
        text = message.content or ""
        blocks.append(text if message.is_summary else f"{message.role.upper()}: {text}")
    return "\n\n".join(blocks)


class EngineMethod(Compactor):
    """A ctxlab engine compacting a CompactBench transcript; subclasses name the engine."""

    name: ClassVar[str] = "ctxlab-engine"
    version: ClassVar[str] = "1"
    store: ClassVar[str] = "state"

    def __init__(self, provider: Any, model: str) -> None:
        super().__init__(provider, model)
        self._context: list[Message] = []
        self._seen: set[int] = set()
        self._refused = ""

    def engine_config(self, budget: Budget) -> Any:
        raise NotImplementedError

    async def compact(
        self,
        transcript: Transcript,
        config: dict[str, Any] | None = None,
        previous_artifact: CompactionArtifact | None = None,
    ) -> CompactionArtifact:
        if previous_artifact is None:  # a new case (the runner makes one compactor per case)
            self._context, self._seen = [], set()
        fresh = [t for t in transcript.turns if t.id not in self._seen]
        self._seen.update(t.id for t in fresh)
        messages = [*self._context, *(_message(t) for t in fresh)]
        tokens = estimate_tokens(messages)
        chat = chat_model_of(self.provider)
        self._context, compacted = self._compacted(messages, budget_for("", tokens), chat)
        return self._artifact(transcript, compacted)

    def _compacted(
        self, messages: list[Message], budget: Budget, chat: ChatModel
    ) -> tuple[list[Message], bool]:
        history = self._history()
        history.append(messages)
        engine = make_engine(self.engine_config(budget), chat, history=history, summary_model=chat)
        self._refused = ""
        try:
            records = self._force(engine, history, budget)
        except SummaryError as refusal:  # failed closed: the context stands as it was
            self._refused = str(refusal)
            print(f"compactbench: {self.name} refused a compaction: {refusal}", file=sys.stderr)
            return messages, False
        return history.messages(), bool(records)

    def _history(self) -> History:
        if self.store == "eventlog":
            return EventLogHistory(EventLog(None))
        return StateHistory(f"compactbench-{self.name}")

    def _force(self, engine: Any, history: History, budget: Budget) -> list[Any]:
        plan = engine.compactor.plan(history.messages(), force=True)
        return list(engine.compact(history, plan))

    def _artifact(self, transcript: Transcript, compacted: bool) -> CompactionArtifact:
        text = render_context(self._context)
        warnings = [f"the engine refused to compact: {self._refused}"] if self._refused else []
        if len(text) > SUMMARY_TEXT_LIMIT:
            text = text[-SUMMARY_TEXT_LIMIT:]
            warnings.append(f"context cut to its newest {SUMMARY_TEXT_LIMIT} characters")
        return CompactionArtifact(
            summaryText=text,
            structured_state=StructuredState(),
            selectedSourceTurnIds=[t.id for t in transcript.turns],
            warnings=warnings,
            methodMetadata={
                "method": self.name,
                "version": self.version,
                "model": self.model,
                "provider": self.provider.key,
                "compacted": compacted,
                "context_messages": len(self._context),
                "refused": self._refused,
            },
        )


class CtxlabMethod(EngineMethod):
    """ctxlab's own profile (:func:`~experiments.x_bench.conditions.ctxlab_config`)."""

    name: ClassVar[str] = "ctxlab"

    def engine_config(self, budget: Budget) -> Any:
        return ctxlab_config(budget)


class AgentScopeMethod(EngineMethod):
    """AgentScope 2.0.3, the article's profile (its prompt, no gate, no size check)."""

    name: ClassVar[str] = "agentscope"

    def engine_config(self, budget: Budget) -> Any:
        return agentscope_config(budget)


class DshMethod(EngineMethod):
    """DeepSeek-Harness's engine (window = trigger / 0.8, retain = tail), compacted now."""

    name: ClassVar[str] = "dsh"
    store: ClassVar[str] = "eventlog"

    def engine_config(self, budget: Budget) -> Any:
        return dsh_config(budget)

    def _force(self, engine: Any, history: History, budget: Budget) -> list[Any]:
        result = engine.compact_now(ChatRequest(messages=()), retain_tokens=budget.keep_tokens)
        return [] if result is None else [result.event]
