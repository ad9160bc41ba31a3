"""One compaction, in the seven steps of AgentScope 2.0.3's ``ConversationCompactor``.

1. truncate old tool-call arguments (optional, off by default);
2. prune old tool results (on by default; no model call, no change in message count);
3. trigger check: messages ≥ trigger_messages or tokens ≥ trigger_tokens, first to fire;
4. the safe cutoff (:func:`find_safe_cutoff`);
5. hand the prefix to the memory flush and write it to the transcript (both best effort);
6. the summary call;
7. replace: ``[summary] + tail``. The prefix is gone from the working history.

The compactor is a function of the message list: it never mutates its input, and it returns
``None`` when nothing is to be done.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.compaction.agentscope.config import CompactionConfig, Thresholds
from harness.compaction.agentscope.cutoff import Cutoff, find_safe_cutoff
from harness.compaction.agentscope.prune import prune_tool_results, truncate_tool_arguments
from harness.compaction.agentscope.summary import build_summary_message, summarize
from harness.compaction.gate import gated_summary
from harness.messages import Message
from harness.meter import Reading, TokenMeter, build_meter
from harness.model import ChatModel, provider_of

__all__ = ["Compaction", "CompactionEvent", "Compactor", "PrefixHook"]

logger = logging.getLogger("harness.compaction")

PrefixHook = Callable[[Sequence[Message]], None]
"""Receives the prefix about to be summarised (flush to memory, offload to the transcript)."""


@dataclass(frozen=True)
class CompactionEvent:
    """What one compaction did, with the numbers its log lines report."""

    trigger: str
    """``messages``, ``tokens``, ``messages+tokens`` or ``overflow`` (forced)."""
    total_messages: int
    total_tokens: int
    cutoff: Cutoff
    keeping: int
    """Messages kept verbatim after the summary."""
    messages_after: int
    tokens_after: int
    summary: str
    """The summary text (without the message's fixed opening line)."""
    summary_failed: bool
    log_lines: tuple[str, ...]
    meter: str = ""
    """The token meter that priced ``total_tokens`` and ``tokens_after``."""
    provider: str = ""
    """Who served the summary call (:func:`harness.model.provider_of`); the event log records
    it on ``compaction/summary``."""
    gate: dict[str, object] | None = None
    """What the identifier-survival gate added (:meth:`harness.compaction.gate.GateResult.
    to_record`); None when the gate is off. ``summary`` already holds the added section."""

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "trigger": self.trigger,
            "total_messages": self.total_messages,
            "total_tokens": self.total_tokens,
            "naive_cutoff": self.cutoff.naive_index,
            "cutoff": self.cutoff.index,
            "cutoff_reason": self.cutoff.reason,
            "keeping": self.keeping,
            "messages_after": self.messages_after,
            "tokens_after": self.tokens_after,
            "summary": self.summary,
            "summary_chars": len(self.summary),
            "summary_failed": self.summary_failed,
            "log_lines": list(self.log_lines),
            "meter": self.meter,
        }
        if self.gate is not None:
            data["gate"] = self.gate
        return data


@dataclass(frozen=True)
class Compaction:
    """The compacted history and the record of how it came about."""

    messages: tuple[Message, ...]
    event: CompactionEvent


class Compactor:
    """Applies a :class:`CompactionConfig` whose dynamic values were resolved to ``thresholds``."""

    def __init__(
        self,
        config: CompactionConfig,
        thresholds: Thresholds,
        summary_model: ChatModel,
        *,
        flush_prefix: PrefixHook | None = None,
        offload_prefix: PrefixHook | None = None,
        meter: TokenMeter | None = None,
    ) -> None:
        self.meter = meter or build_meter(config.meter)
        """Prices the token trigger, the token-mode tail and the event's numbers."""
        self.config = config
        self.thresholds = thresholds
        self.summary_model = summary_model
        self.flush_prefix = flush_prefix
        self.offload_prefix = offload_prefix

    def compact_if_needed(
        self, messages: Sequence[Message], reading: Reading | None = None
    ) -> Compaction | None:
        """Run the seven steps; None when no trigger fired or nothing can be cut.

        ``reading`` is the meter's figure for the whole request carrying ``messages`` (from the
        engine); without it the trigger prices ``messages`` alone, as AgentScope does."""
        working = self._shrink_tool_traffic(messages)
        tokens = self._tokens(messages, working, reading)
        trigger = self.trigger(len(working), tokens)
        if trigger is None:
            return None
        return self._compact(working, trigger, tokens)

    def force(
        self, messages: Sequence[Message], reading: Reading | None = None
    ) -> Compaction | None:
        """Compact now whatever the triggers say (context overflow); None if nothing can be cut."""
        working = self._shrink_tool_traffic(messages)
        return self._compact(working, "overflow", self._tokens(messages, working, reading))

    def quiet(self, count: int, tokens: int, prune_would_change: bool) -> bool:
        """True when :meth:`compact_if_needed` is sure to return None: steps 1 and 2 would
        change nothing and neither trigger fires for ``count`` messages of ``tokens``."""
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

    def _shrink_tool_traffic(self, messages: Sequence[Message]) -> list[Message]:
        working = list(messages)
        if self.config.truncate_args is not None:
            working = truncate_tool_arguments(working, self.config.truncate_args)
        if self.config.prune is not None:
            working = prune_tool_results(working, self.config.prune)
        return working

    def _tokens(
        self, original: Sequence[Message], working: Sequence[Message], reading: Reading | None
    ) -> int:
        if reading is None:
            return self.meter.price_all(working)
        return reading.tokens + self.meter.price_all(working) - self.meter.price_all(original)

    def _compact(self, messages: list[Message], trigger: str, tokens: int) -> Compaction | None:
        cutoff = find_safe_cutoff(
            messages, self.thresholds.keep_messages, self.thresholds.keep_tokens, self.meter.price
        )
        if cutoff.index <= 0:
            logger.debug("Compaction triggered but safe cutoff is 0 — skipping")
            return None
        prefix, tail = messages[: cutoff.index], messages[cutoff.index :]
        triggered = (
            f"Compaction triggered: total={len(messages)} msgs / {tokens} tokens, "
            f"cutoff={cutoff.index}, keeping={len(tail)} msgs"
        )
        logger.info(triggered)
        self._before_summary(prefix)
        summary = summarize(self.summary_model, prefix, self.config.summary_prompt)
        text, gate = gated_summary(self.config.gate, summary.text, prefix, self.meter)
        compacted = (build_summary_message(text), *tail)
        done = f"Compacted to {len(compacted)} messages before reasoning"
        logger.info(done)
        after = tokens + self.meter.price_all(compacted) - self.meter.price_all(messages)
        event = CompactionEvent(
            trigger=trigger,
            total_messages=len(messages),
            total_tokens=tokens,
            cutoff=cutoff,
            keeping=len(tail),
            messages_after=len(compacted),
            tokens_after=after,
            summary=text,
            summary_failed=summary.failed,
            log_lines=(triggered, done),
            meter=self.meter.name,
            provider=provider_of(self.summary_model),
            gate=gate,
        )
        return Compaction(messages=compacted, event=event)

    def _before_summary(self, prefix: Sequence[Message]) -> None:
        if self.config.flush_before_compact and self.flush_prefix is not None:
            _best_effort(self.flush_prefix, [m for m in prefix if not m.is_summary], "flush")
        if self.config.offload_before_compact and self.offload_prefix is not None:
            _best_effort(self.offload_prefix, prefix, "offload")


def _best_effort(hook: PrefixHook, prefix: Sequence[Message], what: str) -> None:
    # The flush and the offload must never block a compaction: the summary still replaces
    # the prefix, and the failure is logged.
    try:
        hook(prefix)
    except Exception as exc:
        logger.warning("Memory %s before compaction failed: %s", what, exc)
