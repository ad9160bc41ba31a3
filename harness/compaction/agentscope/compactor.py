"""One compaction, in the seven steps of AgentScope 2.0.3's ``ConversationCompactor``.

1. truncate old tool-call arguments (optional, off by default);
2. prune old tool results (on by default; no model call, no change in message count);
3. trigger check: messages ≥ trigger_messages or tokens ≥ trigger_tokens, first to fire;
4. the safe cutoff (:func:`find_safe_cutoff`);
5. hand the prefix to the **memory flush** and record it in the store (both best effort);
6. the summary call;
7. replace: ``[summary] + tail``. The prefix is gone from the working history.

The compactor does steps 1-4 as a pure function, :meth:`Compactor.plan` (messages in, a
:class:`Plan` out: trigger, cutoff, prefix, tail; no model call, no write), and steps 6-7 as
:meth:`Compactor.summarize` (the one model call) and :meth:`Compactor.build` (pure). Step 5 has
side effects, so it is not here: the engine runs it between the plan and the summary
(:meth:`harness.compaction.agentscope.engine.AgentScopeEngine.before_request`). The compactor never
mutates its input, and returns ``None`` when nothing is to be done.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from harness.compaction.agentscope.chunked import needs_chunks, summarize_in_chunks
from harness.compaction.agentscope.config import CompactionConfig, Thresholds
from harness.compaction.agentscope.cutoff import Cutoff, find_safe_cutoff
from harness.compaction.agentscope.prune import prune_tool_results, truncate_tool_arguments
from harness.compaction.agentscope.summary import (
    DEFAULT_SUMMARY_PROMPT,
    SUMMARY_PREFIX,
    TRANSCRIPT_ROLES,
    build_summary_message,
    summarize,
)
from harness.compaction.guards.budget import (
    MAX_SUMMARY_CALL_TOKENS,
    budget_prompt,
    fit_lines,
    gate_reserve,
    summary_budget,
    text_budget,
)
from harness.compaction.guards.echo import ECHO_ONLY, strip_echo
from harness.compaction.guards.gate import gated_summary
from harness.compaction.guards.pin import apply_pin, pin_budget
from harness.compaction.guards.quotes import Quotes, quote_request, verified, with_quotes
from harness.compaction.guards.thrash import ThrashGuard, allows
from harness.compaction.guards.unsourced import UNSOURCED_ONLY, drop_unsourced, source_text
from harness.compaction.record import CompactionRecord
from harness.messages import Message
from harness.meter import Ledger, Reading, TokenMeter, build_meter
from harness.model import ChatModel, provider_of
from harness.summary_outcome import SummaryOutcome

__all__ = ["Compaction", "CompactionRecord", "Compactor", "Plan", "PrefixHook"]

logger = logging.getLogger("harness.compaction")

PrefixHook = Callable[[Sequence[Message]], None]
"""Receives the prefix about to be summarised (step 5: the memory flush, the store's record)."""


@dataclass(frozen=True)
class Compaction:
    """The compacted history and the record of how it came about."""

    messages: tuple[Message, ...]
    event: CompactionRecord


@dataclass(frozen=True)
class Plan:
    """Steps 1-4 of a compaction, decided but not done: what to summarise and what to keep."""

    trigger: str
    """``messages``, ``tokens``, ``messages+tokens`` or ``overflow`` (forced)."""
    messages: tuple[Message, ...]
    """The history after steps 1-2 (truncated arguments, pruned tool results)."""
    tokens: int
    """The request's price with ``messages`` as its history."""
    cutoff: Cutoff

    @property
    def prefix(self) -> tuple[Message, ...]:
        """The messages the summary replaces."""
        return self.messages[: self.cutoff.index]

    @property
    def tail(self) -> tuple[Message, ...]:
        """The messages kept verbatim after the summary."""
        return self.messages[self.cutoff.index :]

    @property
    def log_line(self) -> str:
        """AgentScope's "Compaction triggered" line."""
        return (
            f"Compaction triggered: total={len(self.messages)} msgs / {self.tokens} tokens, "
            f"cutoff={self.cutoff.index}, keeping={len(self.tail)} msgs"
        )


class Compactor:
    """Applies a :class:`CompactionConfig` whose dynamic values were resolved to ``thresholds``.

    :meth:`plan`, then :meth:`summarize`, then :meth:`build`; :meth:`compact_if_needed` and
    :meth:`force` run the three in a row, without step 5 (the engine's)."""

    def __init__(
        self,
        config: CompactionConfig,
        thresholds: Thresholds,
        summary_model: ChatModel,
        *,
        meter: TokenMeter | None = None,
    ) -> None:
        self.meter = meter or build_meter(config.meter)
        """Prices the token trigger, the token-mode tail and the event's numbers."""
        self.config = config
        self.thresholds = thresholds
        self.summary_model = summary_model
        self.guard = (
            ThrashGuard(config.thrash, thresholds, self.meter.price) if config.thrash else None
        )
        """The thrash guard of ``config.thrash`` (None when off); it keeps the session's
        refill count and its skip records."""
        self.budget = summary_budget(
            config.summary_budget, thresholds.trigger_tokens, thresholds.keep_tokens
        )
        """The most a summary message may cost (``config.summary_budget``); None: no limit."""

    def plan(
        self,
        messages: Sequence[Message],
        reading: Reading | None = None,
        *,
        force: bool = False,
        prune_would_change: bool | None = None,
        priced: Ledger[Message] | None = None,
    ) -> Plan | None:
        """Steps 1-4; None when no trigger fired (unless ``force``: a context overflow) or
        nothing can be cut. No model call, no write; it logs its trigger line, as AgentScope.

        ``reading`` is the meter's figure for the whole request carrying ``messages`` (from the
        engine); without it the trigger prices ``messages`` alone, as AgentScope does.
        ``prune_would_change`` False (the engine's :class:`~.prune.PruneForecast` of the same
        messages) skips step 2's walk of the whole history, which would change nothing;
        ``priced``, the engine's ledger of the same messages, finds the kept tail and prices the
        prefix the thrash guard weighs when steps 1-2 changed nothing (its running sums: no
        walk of the history)."""
        working = self._shrink_tool_traffic(messages, prune_would_change)
        tokens = self._tokens(messages, working, reading, self._shrinks(prune_would_change))
        trigger = "overflow" if force else self.trigger(len(working), tokens)
        if trigger is None:
            return None
        ledger = self._ledger_of(priced, working, prune_would_change)
        limits = self.thresholds
        cutoff = find_safe_cutoff(
            working, limits.keep_messages, limits.keep_tokens, self.meter.price, ledger
        )
        if cutoff.index <= 0:
            logger.debug("Compaction triggered but safe cutoff is 0 — skipping")
            return None
        removed = None if ledger is None else ledger.prefix(cutoff.index)
        if not allows(self.guard, working, cutoff.index, trigger, tokens, removed):  # the guard
            return None
        plan = Plan(trigger, tuple(working), tokens, cutoff)
        logger.info(plan.log_line)
        return plan

    def summarize(self, plan: Plan) -> SummaryOutcome:
        """Step 6: the summary call over the plan's prefix (fail-open: a failed call gives the
        ``(Summary unavailable)`` placeholder); a backlog's chunk calls carry the same prompt
        and cap."""
        prompt, cap = self._summary_request()
        chunk = self.config.summary_chunk_tokens
        if chunk is not None and needs_chunks(plan.prefix, chunk):  # ctxlab's, off in the seed's
            return summarize_in_chunks(self.summary_model, plan.prefix, prompt, chunk, cap)
        policy = self.config.summary_policy
        return summarize(self.summary_model, plan.prefix, prompt, policy, max_tokens=cap)

    def _summary_request(self) -> tuple[str | None, int | None]:
        """The summary prompt (None: the default) and ``max_tokens`` (None: none sent): the
        config's, or with a summary budget the length it leaves the text named and the call
        capped at the budget."""
        prompt, cap, budget = (
            self.config.summary_prompt,
            self.config.summary_max_tokens,
            self.budget,
        )
        if self.config.quotes is not None:
            prompt = (prompt or DEFAULT_SUMMARY_PROMPT) + quote_request(self.config.quotes)
        if budget is None:
            return prompt, cap
        gate = self.config.gate.budget_tokens if self.config.gate is not None else None
        prompt = budget_prompt(prompt or DEFAULT_SUMMARY_PROMPT, text_budget(budget, gate))
        return prompt, min(budget, MAX_SUMMARY_CALL_TOKENS, cap or MAX_SUMMARY_CALL_TOKENS)

    def build(self, plan: Plan, summary: SummaryOutcome) -> Compaction:
        """Step 7: ``[summary] + tail`` and the event recording how it came about. The
        identifier-survival gate (``config.gate``) appends the exact values the summary
        dropped first (deterministic, no model call)."""
        quotes = self._proposed(summary, plan)
        summary = summary if quotes is None else replace(summary, text=quotes.text)
        text, unsourced = self._sourced(summary, plan)
        text, echoed = self._unechoed(text, summary.failed)
        text, room, cut = self._within_budget(text)
        text, quoted, room = with_quotes(text, quotes, room, self._message_price)
        cut = (*unsourced, *echoed, *cut, *quoted)
        text, pin, room = self._pinned(text, plan, room)
        text, gate = gated_summary(self.config.gate, text, plan.prefix, self.meter, room)
        compacted = (build_summary_message(text), *plan.tail)
        done = f"Compacted to {len(compacted)} messages before reasoning"
        logger.info(done)
        priced = self.meter.price_all
        event = CompactionRecord(
            engine="agentscope",
            trigger=plan.trigger,
            total_messages=len(plan.messages),
            total_tokens=plan.tokens,
            cutoff=plan.cutoff,
            keeping=len(plan.tail),
            messages_after=len(compacted),
            tokens_after=plan.tokens + priced(compacted) - priced(plan.messages),
            summary=text,
            summary_failed=summary.failed,
            log_lines=(plan.log_line, *cut, done),
            meter=self.meter.name,
            provider=provider_of(self.summary_model),
            gate=gate,
            pin=pin,
        )
        return Compaction(messages=compacted, event=event)

    def _proposed(self, summary: SummaryOutcome, plan: Plan) -> Quotes | None:
        """The summary's proposed quotes checked against the span (``config.quotes``)."""
        if self.config.quotes is None or summary.failed:
            return None
        return verified(summary.text, source_text(plan.prefix), self.config.quotes)

    def _pinned(
        self, text: str, plan: Plan, room: int | None
    ) -> tuple[str, dict[str, object] | None, int | None]:
        """``text`` with the user's own words pinned (``config.pin``), the pin's record and the
        room it left the gate (None: the gate's own budget). With a summary budget the pin
        takes no more than the room the text left, so the message stays within it."""
        config = self.config.pin
        if config is None:
            return text, None, room
        limits = self.thresholds
        budget = pin_budget(config, limits.trigger_tokens, limits.keep_tokens)
        budget = budget if room is None else min(budget, room)
        empty = self.meter.price(Message.user(""))

        def price(part: str) -> int:
            return max(self.meter.price(Message.user(part)) - empty, 0)

        result = apply_pin(config, text, plan.prefix, plan.tail, budget, price)
        left = None if room is None else max(room - result.tokens, 0)
        return result.text, result.to_record(), left

    def _sourced(self, summary: SummaryOutcome, plan: Plan) -> tuple[str, tuple[str, ...]]:
        """The model's text without the lines naming an identifier found nowhere in the
        compacted context (``config.drop_unsourced``), and the line saying so (if any);
        :data:`UNSOURCED_ONLY` when nothing else was in it."""
        if not self.config.drop_unsourced or summary.failed:
            return summary.text, ()
        unsourced = drop_unsourced(summary.text, source_text(plan.messages))
        if not unsourced.dropped:
            return summary.text, ()
        values = unsourced.values
        shown = ", ".join(values[:3]) + (", …" if len(values) > 3 else "")
        line = (
            f"Summary named {len(values)} value(s) found nowhere in its span ({shown}): "
            f"{unsourced.dropped} line(s) dropped"
        )
        logger.info(line)
        return unsourced.text or UNSOURCED_ONLY, (line,)

    def _unechoed(self, text: str, failed: bool) -> tuple[str, tuple[str, ...]]:
        """The model's text without the lines that only repeat the prompt's instructions
        (``config.strip_echo``), and the line saying so (if any); :data:`ECHO_ONLY` when
        nothing else was in it."""
        if not self.config.strip_echo or failed:
            return text, ()
        prompt = self.config.summary_prompt or DEFAULT_SUMMARY_PROMPT
        echo = strip_echo(text, prompt, roles=TRANSCRIPT_ROLES, preface=SUMMARY_PREFIX)
        if not echo.dropped:
            return text, ()
        line = f"Summary echoed its instructions: {echo.dropped} line(s) dropped"
        logger.info(line)
        return echo.text or ECHO_ONLY, (line,)

    def _within_budget(self, text: str) -> tuple[str, int | None, tuple[str, ...]]:
        """The model's ``text`` cut to the summary budget, leaving the gate its reserve; the
        gate's budget (the room the text left) and the line saying what was cut (if any)."""
        budget = self.budget
        if budget is None:
            return text, None, ()
        gate = self.config.gate
        reserve = gate_reserve(budget, gate.budget_tokens if gate is not None else None)
        price = self._message_price
        kept = fit_lines(text, budget - reserve, price)
        room = max(budget - price(kept), 0)
        if kept == text:
            return text, room, ()
        line = (
            f"Summary cut to the budget: {price(text)} → {price(kept)} tokens "
            f"(budget {budget}, {reserve} kept for the gate)"
        )
        logger.info(line)
        return kept, room, (line,)

    def _message_price(self, text: str) -> int:
        return self.meter.price(build_summary_message(text))

    def compact_if_needed(
        self, messages: Sequence[Message], reading: Reading | None = None
    ) -> Compaction | None:
        """Plan, summarise, build; None when no trigger fired or nothing can be cut."""
        plan = self.plan(messages, reading)
        return None if plan is None else self.build(plan, self.summarize(plan))

    def force(
        self, messages: Sequence[Message], reading: Reading | None = None
    ) -> Compaction | None:
        """Compact now whatever the triggers say (context overflow); None if nothing can be cut."""
        plan = self.plan(messages, reading, force=True)
        return None if plan is None else self.build(plan, self.summarize(plan))

    def quiet(self, count: int, tokens: int, prune_would_change: bool) -> bool:
        """True when :meth:`plan` is sure to return None: steps 1 and 2 would change nothing
        and neither trigger fires for ``count`` messages of ``tokens``."""
        if self.config.truncate_args is not None or prune_would_change:
            return False
        return self.trigger(count, tokens) is None

    def trigger(self, count: int, tokens: int) -> str | None:
        """Which triggers fire for ``count`` messages of ``tokens``, joined by ``+``."""
        limits = self.thresholds
        fired = []
        if limits.trigger_messages and count >= limits.trigger_messages:
            fired.append("messages")
        if limits.trigger_tokens is not None and tokens >= limits.trigger_tokens:
            fired.append("tokens")
        return "+".join(fired) or None

    def _ledger_of(
        self,
        priced: Ledger[Message] | None,
        working: Sequence[Message],
        prune_would_change: bool | None,
    ) -> Ledger[Message] | None:
        """The engine's ledger when it holds exactly ``working`` (steps 1-2 changed none): the
        cutoff finds the kept tail and the guard the removed prefix's price from its running
        sums; None: both price the messages themselves."""
        if priced is None or len(priced) != len(working) or self._shrinks(prune_would_change):
            return None
        return priced

    def _shrinks(self, prune_would_change: bool | None) -> bool:
        """Whether step 1 or 2 runs (the forecast's False spares step 2 when step 1 is off)."""
        if self.config.truncate_args is not None:
            return True
        return self.config.prune is not None and prune_would_change is not False

    def _shrink_tool_traffic(
        self, messages: Sequence[Message], prune_would_change: bool | None = None
    ) -> Sequence[Message]:
        """Steps 1-2: new lists where they change a message, else ``messages`` itself (read,
        never changed: a copy of a long history each request is what a session that skips every
        compaction paid for nothing)."""
        working = messages
        if self.config.truncate_args is not None:
            working = truncate_tool_arguments(working, self.config.truncate_args)
            prune_would_change = None  # the forecast priced the messages before step 1
        if self.config.prune is not None and prune_would_change is not False:
            working = prune_tool_results(working, self.config.prune)
        return working

    def _tokens(
        self,
        original: Sequence[Message],
        working: Sequence[Message],
        reading: Reading | None,
        shrunk: bool = True,
    ) -> int:
        if reading is None:
            return self.meter.price_all(working)
        if not shrunk:  # every working message is the original one: nothing moves the reading
            return reading.tokens
        # steps 1-2 keep the count and every message they did not change (the same object),
        # so only the changed ones move the reading
        price = self.meter.price
        changed = [(w, o) for w, o in zip(working, original, strict=True) if w is not o]
        return reading.tokens + sum(price(w) - price(o) for w, o in changed)
