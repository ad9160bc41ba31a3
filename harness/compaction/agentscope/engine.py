"""AgentScope 2.0.3's engine as the agent loop sees it: :class:`AgentScopeEngine` runs the
compactor (:mod:`harness.compaction.agentscope`) over any :class:`harness.store.history.History`:
the compactor's plan, then the **memory flush** and the prefix record, then the summary, at one
call site (:meth:`AgentScopeEngine.compact`). It implements
:class:`~harness.compaction.engine.CompactionEngine`; build it with
:func:`harness.compaction.factory.make_engine`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.compaction.agentscope.compactor import Compaction, Compactor, Plan, PrefixHook
from harness.compaction.agentscope.prune import PruneForecast
from harness.compaction.guards.recall import (
    RecallRecord,
    ShadowedSpans,
    recall,
    recall_message,
)
from harness.compaction.guards.recall_index import ReferencePrices, ShadowIndex
from harness.compaction.guards.thrash import ThrashRecord
from harness.compaction.interrupts import carries_interrupt
from harness.compaction.record import CompactionRecord
from harness.errors import SummaryError
from harness.messages import Message
from harness.meter import Anchor, Ledger, Reading, TokenMeter, same_message
from harness.model import Usage
from harness.store.history import History

if TYPE_CHECKING:
    from harness.compaction.engine import Turn

__all__ = ["AgentScopeEngine"]

logger = logging.getLogger("harness.compaction.dsh")
step_logger = logging.getLogger("harness.compaction")


class AgentScopeEngine:
    """Runs a :class:`Compactor` and applies its result to the history.

    The check before a request costs what changed since the last one: the history's prices
    (:class:`~harness.meter.Ledger`) and the prune's decision (:class:`PruneForecast`) are kept up
    to date from the turn's messages, and the full compactor runs only when a trigger may fire."""

    max_overflow_retries = 1
    overflow_retries_reset_on_reply = False

    def __init__(self, compactor: Compactor, *, flush: PrefixHook | None = None) -> None:
        self.compactor = compactor
        self.flush = flush
        """The memory flush of step 5 (run when the config's ``flush_before_compact`` is on)."""
        self._ledger: Ledger[Message] = Ledger(compactor.meter.price, same_message)
        prune = compactor.config.prune
        self._forecast = PruneForecast(prune) if prune is not None else None
        self.spans = ShadowedSpans()
        """The originals of the spans this engine compacted (the recall's source when the store
        keeps none; kept only with ``config.recall`` on)."""
        self._reference_price = ReferencePrices(compactor.meter.price)
        self._shadow = ShadowIndex(self._fits_whole)
        """The originals as the recall searches them, each derived once (not every request)."""
        self._last_read: tuple[Turn, Anchor | None, Reading] | None = None
        """The last turn read, the meter's anchor then, and the reading (a turn is immutable,
        and a reading depends on nothing else: the ledger and the forecast only cache it)."""

    @property
    def meter(self) -> TokenMeter:
        return self.compactor.meter

    @property
    def thrash_record(self) -> ThrashRecord | None:
        """What this engine's thrash guard did so far (skips by reason, compactions allowed,
        refills, the latest skip); None when the config has no guard."""
        guard = self.compactor.guard
        return None if guard is None else guard.record()

    def read(self, turn: Turn) -> Reading:
        """The meter's reading of ``turn``; O(header + messages added since the last), and
        O(1) for the turn read last while the meter's anchor is the same (:meth:`observe`
        reads the turn :meth:`before_request` read, when it compacted nothing)."""
        last = self._last_read
        if last is not None and last[0] is turn and last[1] is self.meter.anchor:
            return last[2]  # the ledger and the forecast are still synced to ``turn``
        self._ledger.sync(turn.request.messages, turn.start, turn.source)  # no copy of it
        if self._forecast is not None:
            self._forecast.sync(turn.request.messages, turn.start, turn.source)
        header, envelope = self.meter.header(turn.header.messages, turn.header.tools)
        reading = self.meter.read(header + self._ledger.total, envelope)
        self._last_read = (turn, self.meter.anchor, reading)
        return reading

    def before_request(self, history: History, turn: Turn) -> list[CompactionRecord]:
        reading = self.read(turn)
        prune = self._forecast is not None and self._forecast.would_prune()
        if self.compactor.quiet(len(self._ledger), reading.tokens, prune):
            return []
        # a trigger fired: the forecast still spares the plan a walk of the whole history
        # when the prune would change nothing (a session whose every request meets the
        # 50-message trigger and is skipped by the thrash guard walked it every request)
        # the turn's own history: what the ledger and the forecast were just synced to
        plan = self.compactor.plan(
            turn.history, reading, prune_would_change=prune, priced=self._ledger
        )
        return self.compact(history, plan)

    def on_overflow(self, history: History, turn: Turn) -> list[CompactionRecord]:
        reading = self.read(turn)
        return self.compact(history, self.compactor.plan(history.messages(), reading, force=True))

    def compact(self, history: History, plan: Plan | None) -> list[CompactionRecord]:
        """Carry out ``plan`` (steps 5-7): every side effect of a compaction is here, in order."""
        if plan is None:
            return []
        # The plan is final: the thrash guard (harness.compaction.guards.thrash) already had its say
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
        # step 7: the identifier-survival gate (harness.compaction.guards.gate) appends the exact
        # values the summary dropped, then ``[summary] + tail`` replaces the history.
        compaction = self.compactor.build(plan, summary)
        if self._too_large(plan, compaction):
            return []
        history.apply_compaction(compaction)
        if self.compactor.config.recall is not None:
            self.spans.keep(plan.prefix)
        return [compaction.event]

    def recall(self, history: History, query: str) -> tuple[Message | None, RecallRecord | None]:
        """ctxlab's recall (``config.recall``) for a request whose newest user message is
        ``query``: the reference message of the shadowed originals that best match it, and the
        record of what was recalled; ``(None, None)`` when the recall is off."""
        config = self.compactor.config.recall
        if config is None:
            return None, None
        context = history.messages()
        if not self.spans.messages and not any(m.summary_kind for m in context):
            # nothing was ever compacted here: no original is shadowed (and none is read)
            return recall(config, [], query, self.meter.price)
        candidates = self._shadow.shadowed_originals(
            history.originals(), self.spans.messages, context
        )
        index = self._shadow.index_of(candidates)
        return recall(config, candidates, query, self._reference_price, index)

    def _fits_whole(self, text: str) -> bool:
        """Whether an original fits the recall's reference message whole (else: in pieces)."""
        config = self.compactor.config.recall
        budget = 0 if config is None else config.budget_tokens
        return self._reference_price(recall_message([Message.user(text)])) <= budget

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

    def observe(self, history: History, turn: Turn, usage: Usage | None) -> Reading:
        reading = self.read(turn)
        self.meter.observe(reading, usage)
        return reading


def _best_effort(hook: PrefixHook, prefix: Sequence[Message], what: str) -> None:
    # The flush and the prefix record must never block a compaction: the summary still
    # replaces the prefix, and the failure is logged. An interrupt wrapped in another error
    # is still the user's: it stops the compaction.
    try:
        hook(prefix)
    except Exception as exc:
        if carries_interrupt(exc):
            raise
        step_logger.warning("Memory %s before compaction failed: %s", what, exc)
