"""The two compaction baselines that need no model, as engines the agent loop runs like any other
(:class:`~harness.compaction.engine.CompactionEngine`): truncation and observation masking.

Both fire where AgentScope's token trigger fires (the history's estimate reaches the budget's
trigger, priced by AgentScope 2.0.3's estimator as every X-BENCH condition is) and keep the same
tail budget:

* :class:`TruncationEngine` drops the oldest messages and keeps the longest run of whole turns at
  the end that fits the tail budget (at least the current turn): no summary, nothing carried;
* :class:`MaskingEngine` (JetBrains' observation masking, "The Complexity Trap", 2025) replaces
  the content of every tool result older than the tail budget with a placeholder and keeps every
  other message: nothing is summarised, the tool calls stay paired with their (masked) results.

They are the suite's (experiments/), not the library's: baselines to measure the engines against.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from experiments.x_bench.pricing import RunningPrice, agentscope_price
from harness import Message
from harness.compaction.agentscope import Compaction, CompactionRecord
from harness.compaction.engine import Turn
from harness.compaction.record import Cutoff
from harness.meter import AGENTSCOPE, Reading, TokenMeter, build_meter, message_price
from harness.model import Usage
from harness.store.history import History

__all__ = ["MASK", "MaskingEngine", "TruncationEngine", "keep_from"]

METER = "agentscope-2.0.3"
MASK = "[tool output omitted]"
"""What a masked tool result holds instead of its output."""


def keep_from(messages: list[Message], keep_tokens: int) -> int:
    """The index of the first message kept: the earliest user message such that everything from
    it on costs at most ``keep_tokens``; the last user message when even that turn costs more."""
    chosen = None
    tail = 0  # the price of messages[n:], walking back from the end
    for n in range(len(messages) - 1, -1, -1):
        tail += message_price(AGENTSCOPE, messages[n])
        if messages[n].role != "user":
            continue
        if chosen is not None and tail > keep_tokens:
            break
        chosen = n
    return 0 if chosen is None else chosen


class _Baseline:
    """What both baselines share: the trigger, the tail budget, the meter, no overflow retry."""

    max_overflow_retries = 0
    overflow_retries_reset_on_reply = False
    kind: Literal["truncation", "masking"] = "truncation"

    def __init__(self, trigger_tokens: int, keep_tokens: int) -> None:
        self.trigger_tokens = trigger_tokens
        self.keep_tokens = keep_tokens
        self._meter = build_meter(METER)
        self._priced = RunningPrice()  # each check repeats the history of the one before

    @property
    def meter(self) -> TokenMeter:
        return self._meter

    def observe(self, history: History, turn: Turn, usage: Usage | None) -> Reading:
        tokens = self._priced.of(history.messages())
        return Reading(METER, tokens, tokens, "estimate")

    def on_overflow(self, history: History, turn: Turn) -> list[CompactionRecord]:
        return []

    def before_request(self, history: History, turn: Turn) -> list[CompactionRecord]:
        messages = history.messages()
        tokens = self._priced.of(messages)
        if tokens < self.trigger_tokens:
            return []
        changed = self._apply(messages)
        if changed is None:
            return []
        after, cut, note = changed
        record = CompactionRecord(
            engine="agentscope",
            trigger="tokens",
            total_messages=len(messages),
            total_tokens=tokens,
            cutoff=Cutoff(cut, cut, note),
            keeping=len(after),
            messages_after=len(after),
            tokens_after=agentscope_price(after),
            summary="",
            summary_failed=False,
            log_lines=(f"{self.kind}: {note}",),
            meter=METER,
            provider="none",
        )
        history.apply_compaction(Compaction(tuple(after), record))
        return [record]

    def _apply(self, messages: list[Message]) -> tuple[list[Message], int, str] | None:
        raise NotImplementedError


class TruncationEngine(_Baseline):
    """Keep the last whole turns within the tail budget; drop the rest."""

    kind = "truncation"

    def _apply(self, messages: list[Message]) -> tuple[list[Message], int, str] | None:
        start = keep_from(messages, self.keep_tokens)
        if start == 0:
            return None
        return messages[start:], start, f"dropped the {start} oldest messages"


class MaskingEngine(_Baseline):
    """Mask the tool results older than the tail budget; keep every message."""

    kind = "masking"

    def _apply(self, messages: list[Message]) -> tuple[list[Message], int, str] | None:
        start = keep_from(messages, self.keep_tokens)
        masked = 0
        out = []
        for n, message in enumerate(messages):
            if n < start and message.role == "tool" and message.content != MASK:
                masked += 1
                message = replace(message, content=MASK)
            out.append(message)
        if not masked:
            return None
        return out, 0, f"masked {masked} tool result(s) before message {start}"
