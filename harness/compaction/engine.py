"""Compaction engines as the agent loop sees them: a check before every model request, and a
recovery step after a context-length error.

* :class:`AgentScopeEngine` — AgentScope 2.0.3's semantics (:mod:`harness.compaction.agentscope`)
  over any :class:`harness.store.history.History`: the compactor's plan, then the **memory
  flush** and the prefix record, then the summary, at one call site
  (:meth:`AgentScopeEngine.compact`);
* :class:`DshAgentEngine` — DeepSeek-Harness's (:mod:`harness.compaction.dsh`), which needs the
  event-log history because a compaction is a transaction on the log.

Build either with :func:`harness.compaction.factory.make_engine`, which refuses the
combinations an engine cannot honour.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from harness.compaction.agentscope import Compaction, CompactionRecord, Compactor, PrefixHook
from harness.compaction.agentscope.compactor import Plan
from harness.compaction.agentscope.prune_gate import PruneGate
from harness.compaction.dsh.engine import DshEngine
from harness.errors import CompactionError, SummaryError
from harness.messages import Message
from harness.meter import Ledger, Reading, TokenMeter, same_message
from harness.model import ChatRequest, Usage
from harness.store.history import History

__all__ = ["AgentScopeEngine", "CompactionEngine", "DshAgentEngine", "request_header"]

logger = logging.getLogger("harness.compaction.dsh")
step_logger = logging.getLogger("harness.compaction")


class CompactionEngine(Protocol):
    """What the agent asks of a compaction engine."""

    def before_request(self, history: History, request: ChatRequest) -> list[CompactionRecord]:
        """Compact if needed before ``request`` (built from the current history) is sent."""
        ...

    def on_overflow(self, history: History, request: ChatRequest) -> list[CompactionRecord]:
        """Compact after the server said ``request`` was too long; [] means no progress."""
        ...

    def observe(self, history: History, request: ChatRequest, usage: Usage | None) -> Reading:
        """``request`` was answered with ``usage``: anchor the meter on it; returns the
        meter's reading of the request."""
        ...

    @property
    def meter(self) -> TokenMeter:
        """The token meter that prices this engine's checks and events."""
        ...

    @property
    def max_overflow_retries(self) -> int:
        """How many overflow retries are allowed before the count starts again."""
        ...

    @property
    def overflow_retries_reset_on_reply(self) -> bool:
        """True when the count starts again once an assistant message lands (dsh); False when
        it holds for the whole call (AgentScope's one retry per execution)."""
        ...


def request_header(history: History, request: ChatRequest) -> ChatRequest:
    """``request`` without its history: system prompt, reference material and tools."""
    count = getattr(history, "message_count", None)  # no copy of the history to count it
    head = len(request.messages) - (count() if count is not None else len(history.messages()))
    return replace(request, messages=request.messages[:head])


HEAD_SCAN = 8
"""How far into a request the engine looks for the history's first message (the header is the
system prompt and a few reference messages)."""


class AgentScopeEngine:
    """Runs a :class:`Compactor` and applies its result to the history.

    The check before a request costs what changed since the last one: the history's prices
    (:class:`~harness.meter.Ledger`) and the prune's decision (:class:`PruneGate`) are kept up
    to date from the request, and the full compactor runs only when a trigger may fire."""

    max_overflow_retries = 1
    overflow_retries_reset_on_reply = False

    def __init__(self, compactor: Compactor, *, flush: PrefixHook | None = None) -> None:
        self.compactor = compactor
        self.flush = flush
        """The memory flush of step 5 (run when the config's ``flush_before_compact`` is on)."""
        self._ledger: Ledger[Message] = Ledger(compactor.meter.price, same_message)
        prune = compactor.config.prune
        self._gate = PruneGate(prune) if prune is not None else None

    @property
    def meter(self) -> TokenMeter:
        return self.compactor.meter

    def read(self, history: History, request: ChatRequest) -> Reading:
        """The meter's reading of ``request``; O(header + messages added since the last)."""
        start = self._history_start(history, request)
        self._ledger.sync(request.messages, start)
        if self._gate is not None:
            self._gate.sync(request.messages, start)
        header, envelope = self.meter.header(request.messages[:start], request.tools)
        return self.meter.read(header + self._ledger.total, envelope)

    def _history_start(self, history: History, request: ChatRequest) -> int:
        if len(self._ledger):
            first = self._ledger.first
            for index, message in enumerate(request.messages[:HEAD_SCAN]):
                if same_message(message, first):
                    return index
        return len(request_header(history, request).messages)

    def before_request(self, history: History, request: ChatRequest) -> list[CompactionRecord]:
        reading = self.read(history, request)
        prune = self._gate is not None and self._gate.would_prune()
        if self.compactor.quiet(len(self._ledger), reading.tokens, prune):
            return []
        return self.compact(history, self.compactor.plan(history.messages(), reading))

    def on_overflow(self, history: History, request: ChatRequest) -> list[CompactionRecord]:
        reading = self.read(history, request)
        return self.compact(history, self.compactor.plan(history.messages(), reading, force=True))

    def compact(self, history: History, plan: Plan | None) -> list[CompactionRecord]:
        """Carry out ``plan`` (steps 5-7): every side effect of a compaction is here, in order."""
        if plan is None:
            return []
        # The plan is final: the thrash guard (harness.compaction.thrash) already had its say
        # inside Compactor.plan, right after the safe cutoff.
        self._before_summary(history, plan)  # step 5: memory flush + prefix record
        try:
            summary = self.compactor.summarize(plan)  # step 6: the one model call
        except SummaryError as exc:
            if self.compactor.config.summary_chunk_tokens is None:
                raise  # the seed's fail-closed policy: the caller decides
            # ctxlab's chunked backlog: a failed chunk keeps the history whole (nothing dropped)
            logger.warning("Compaction skipped, the history is kept as it was: %s", exc)
            return []
        # step 7: the identifier-survival gate (harness.compaction.gate) appends the exact
        # values the summary dropped, then ``[summary] + tail`` replaces the history.
        compaction = self.compactor.build(plan, summary)
        if self._too_large(plan, compaction):
            return []
        history.apply_compaction(compaction)
        return [compaction.event]

    def _too_large(self, plan: Plan, compaction: Compaction) -> bool:
        """ctxlab's size check (``refuse_larger_summary``): the summary message is not smaller
        than the span it would replace."""
        if not self.compactor.config.refuse_larger_summary or not compaction.messages:
            return False
        span = self.meter.price_all(plan.prefix)
        summary = self.meter.price(compaction.messages[0])
        if summary < span:
            return False
        step_logger.warning(
            "Compaction refused: the summary (%d tokens) is not smaller than the %d messages "
            "it would replace (%d tokens)",
            summary,
            len(plan.prefix),
            span,
        )
        return True

    def _before_summary(self, history: History, plan: Plan) -> None:
        config = self.compactor.config
        if config.flush_before_compact and self.flush is not None:
            _best_effort(self.flush, [m for m in plan.prefix if not m.is_summary], "flush")
        if config.offload_before_compact:
            _best_effort(history.record_prefix, plan.prefix, "offload")

    def observe(self, history: History, request: ChatRequest, usage: Usage | None) -> Reading:
        reading = self.read(history, request)
        self.meter.observe(reading, usage)
        return reading


class DshAgentEngine:
    """Runs a :class:`DshEngine` on the event log behind the agent's history."""

    overflow_retries_reset_on_reply = True

    def __init__(self, engine: DshEngine) -> None:
        self.engine = engine

    @property
    def max_overflow_retries(self) -> int:
        return self.engine.config.max_overflow_retries

    @property
    def meter(self) -> TokenMeter:
        return self.engine.meter

    def observe(self, history: History, request: ChatRequest, usage: Usage | None) -> Reading:
        reading = self.engine.read(request_header(history, request))
        self.engine.meter.observe(reading, usage)
        return reading

    def before_request(self, history: History, request: ChatRequest) -> list[CompactionRecord]:
        # As dsh's pre-step listener: a failed pressure compaction is logged and the turn goes
        # on (the request may then overflow, and overflow recovery gets its chance).
        return self.engine.compact_if_needed(request_header(history, request))

    def on_overflow(self, history: History, request: ChatRequest) -> list[CompactionRecord]:
        # A recovery that fails before any progress leaves the provider's error to the caller.
        try:
            return self.engine.recover_overflow(request_header(history, request))
        except CompactionError as exc:
            logger.warning("Overflow recovery failed: %s", exc)
            return []


def _best_effort(hook: PrefixHook, prefix: Sequence[Message], what: str) -> None:
    # The flush and the prefix record must never block a compaction: the summary still
    # replaces the prefix, and the failure is logged.
    try:
        hook(prefix)
    except Exception as exc:
        step_logger.warning("Memory %s before compaction failed: %s", what, exc)
