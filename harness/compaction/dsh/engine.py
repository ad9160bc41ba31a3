"""The DeepSeek-Harness compaction engine over an append-only event log.

A compaction is a region transaction of four appended events, never a rewrite:

1. ``compaction/start`` — appended before the summary call; an unclosed start is the lock;
2. ``compaction/summary`` — summary text, raw output, the shadowed range and seqs, their
   price, provider, model and usage (log only), as the seed lists them;
3. ``user/message`` — the framed checkpoint, a positional ``replace`` of the shadowed span
   whose sources cite the start, the summary and every shadowed node;
4. ``compaction/end`` — always last; a failed attempt ends with its ``error``.

Events 1 and 4 are :func:`harness.store.eventlog.bracket.compaction_bracket` (shared with the
AgentScope engine on a log and manual compaction); this module writes 2 and 3.

Automatic compaction (pressure, overflow) requires the whole surface unchanged across the
summary call; manual compaction only the selected span.
"""

from __future__ import annotations

import logging
import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from harness.compaction.dsh.config import DshConfig
from harness.compaction.dsh.pruner import ToolResultPruner
from harness.compaction.dsh.selection import CompactableRange, Measurement, select_compactable_range
from harness.compaction.dsh.summarizer import (
    build_summary_request,
    gated_checkpoint,
    summarize_span,
)
from harness.compaction.record import CompactionRecord, Cutoff
from harness.errors import CommitError, CompactionError, SurfaceChangedError
from harness.messages import Message
from harness.meter import Ledger, Reading, TokenMeter, build_meter
from harness.model import ChatModel, ChatRequest, ChatResponse, Usage, provider_of
from harness.store.eventlog.bracket import Bracket, compaction_bracket, refuse_if_busy

if TYPE_CHECKING:
    from harness.compaction.engine import Turn
    from harness.store.eventlog import EventLog
    from harness.store.history import History

__all__ = ["DshEngine", "DshResult"]

logger = logging.getLogger("harness.compaction.dsh")

Check = Literal["whole-surface", "selected-span"]


@dataclass(frozen=True)
class DshResult:
    """What one region transaction appended, and the event for reports."""

    event: CompactionRecord
    start_seq: int
    summary_seq: int
    checkpoint_seq: int
    end_seq: int
    summary_request: ChatRequest


class DshEngine:
    """Pressure, overflow and manual compaction for one event log; the agent loop's
    :class:`~harness.compaction.engine.CompactionEngine` for an event-log history."""

    overflow_retries_reset_on_reply = True
    """dsh counts overflow retries per assistant reply."""

    def __init__(
        self,
        log: EventLog,
        model: ChatModel,
        config: DshConfig | None = None,
        meter: TokenMeter | None = None,
    ) -> None:
        self.log = log
        self.model = model
        self.config = config or DshConfig()
        self.meter = meter or build_meter(self.config.meter)
        """Prices pressure, the retain budget and the events (``config.meter`` by default)."""
        self._prices: dict[int, int] = {}  # event seq -> price; events never change
        self._ledger: Ledger[int] = Ledger(self._price_of, operator.eq)
        self._generation = -1

    @property
    def max_overflow_retries(self) -> int:
        return self.config.max_overflow_retries

    # --- the loop's engine seam (harness.compaction.engine.CompactionEngine) ---------------

    def before_request(self, history: History, turn: Turn) -> list[CompactionRecord]:
        # As dsh's pre-step listener: a failed pressure compaction is logged and the turn goes
        # on (the request may then overflow, and overflow recovery gets its chance).
        return self.compact_if_needed(turn.header)

    def on_overflow(self, history: History, turn: Turn) -> list[CompactionRecord]:
        # A recovery that fails before any progress leaves the provider's error to the caller.
        try:
            return self.recover_overflow(turn.header)
        except CompactionError as exc:
            logger.warning("Overflow recovery failed: %s", exc)
            return []

    def observe(self, history: History, turn: Turn, usage: Usage | None) -> Reading:
        reading = self.read(turn.header)
        self.meter.observe(reading, usage)
        return reading

    def read(self, header: ChatRequest) -> Reading:
        """The meter's reading of ``header`` + the surface; prices only the nodes that are new
        since the last reading."""
        nodes = self.log.node_seqs  # live, not a copy: ``log.surface`` copies every node
        generation = self.log.replace_generation
        if generation != self._generation:  # a replace changed the live list in place
            self._generation = generation
            self._ledger.reset(nodes, source=nodes)
        else:  # it only grew (the same list again: O(1)), or a reopen built a new one
            self._ledger.sync(nodes, 0, nodes)
        price, envelope = self.meter.header(header.messages, header.tools)
        return self.meter.read(price + self._ledger.total, envelope)

    def _price_of(self, seq: int) -> int:
        """Surface node ``seq``'s price, computed once (events never change)."""
        price = self._prices.get(seq)
        if price is None:
            message = self.log.events[seq].message
            assert message is not None  # surface nodes are surface events
            price = self._prices[seq] = self.meter.price(message)
        return price

    def measure(self, header: ChatRequest) -> Measurement:
        """Every node's price (for the range selection), with the meter's pricer."""
        return self._measure(header, self.log.node_messages())

    def _measure(self, header: ChatRequest, nodes: list[tuple[int, Message]]) -> Measurement:
        price, _ = self.meter.header(header.messages, header.tools)
        return Measurement(price, tuple((seq, self.meter.price(m)) for seq, m in nodes))

    def compact_if_needed(self, header: ChatRequest) -> list[CompactionRecord]:
        """The pressure path: below the threshold nothing happens; above it, up to
        ``1 + compaction_retries`` compactions until the request fits again."""
        threshold = self.config.threshold
        if self.read(header).tokens < threshold:
            return []
        if self._prune() and self.read(header).tokens < threshold:
            return []  # the prune alone relieved the pressure; it is already on the log
        events = []
        for _ in range(1 + self.config.compaction_retries):
            try:
                result = self._compact(header, self.config.retain, "pressure", "whole-surface")
            except CompactionError as exc:  # closed with its error in the log; the turn goes on
                logger.warning("Pressure compaction failed: %s", exc)
                break
            if result is None:
                break
            events.append(result.event)
            if self.read(header).tokens < threshold:
                return events
        logger.warning(
            "still above the threshold (%d tokens) after %d compactions", threshold, len(events)
        )
        return events

    def recover_overflow(self, header: ChatRequest) -> list[CompactionRecord]:
        """After a provider-confirmed overflow: compact with retain 0, whatever the pressure.
        An empty list means the surface did not change, so a retry would fail again."""
        if self.config.max_overflow_retries == 0:
            return []
        generation = self.log.surface.replace_generation
        self._prune()
        try:
            result = self._compact(header, 0, "overflow", "whole-surface")
        except CompactionError:
            # A reduction the prune already made durable still counts as progress.
            if self.log.surface.replace_generation == generation:
                raise
            result = None
        if self.log.surface.replace_generation == generation:
            return []
        return [result.event] if result is not None else [self._prune_event()]

    def _prune(self) -> int:
        if not self.config.prune or self.log.open_compaction() is not None:
            return 0
        return ToolResultPruner().prune(self.log, self.meter.price, self.meter.name)

    def _prune_event(self) -> CompactionRecord:
        count = len(self.log.messages())
        line = "DSH overflow recovery: pruned tool results; the summary stage failed"
        logger.info(line)
        return CompactionRecord(
            engine="dsh",
            trigger="overflow-prune",
            total_messages=count,
            total_tokens=None,
            cutoff=None,
            keeping=count,
            messages_after=count,
            tokens_after=None,
            summary="",
            summary_failed=True,
            log_lines=(line,),
            meter=self.meter.name,
        )

    def compact_now(
        self, header: ChatRequest, instructions: str = "", retain_tokens: int = 0
    ) -> DshResult | None:
        """Manual compaction: everything but a tail of ``retain_tokens`` (by default only the
        newest indivisible unit); None when there is nothing useful to compact."""
        return self._compact(header, retain_tokens, "manual", "selected-span", instructions)

    def _compact(
        self, header: ChatRequest, retain: int, trigger: str, check: Check, instructions: str = ""
    ) -> DshResult | None:
        refuse_if_busy(self.log)
        nodes = self.log.node_messages()  # a corrupt surface: the selection raises, as dsh's
        before = self._measure(header, nodes)
        selection = select_compactable_range(nodes, before, retain)
        if selection is None:
            return None
        tokens = self.read(header).tokens
        shadowed = [m for _, m in nodes[selection.start : selection.end + 1]]
        request = build_summary_request(header, shadowed, self.config.max_tokens, instructions)
        with compaction_bracket(self.log, engine="dsh", trigger=trigger) as bracket:
            summary_seq, checkpoint_seq, summary = self._transaction(
                bracket, header, request, (before, selection, shadowed), check
            )
        assert bracket.end is not None  # the bracket closed without an error
        record = self._record(header, nodes, tokens, selection, summary, trigger)
        return DshResult(
            record, bracket.start.seq, summary_seq, checkpoint_seq, bracket.end.seq, request
        )

    def _transaction(
        self,
        bracket: Bracket,
        header: ChatRequest,
        request: ChatRequest,
        selected: tuple[Measurement, CompactableRange, list[Message]],
        check: Check,
    ) -> tuple[int, int, str]:
        """The summary and replace steps inside the bracket: (summary seq, checkpoint seq,
        summary text)."""
        before, selection, shadowed = selected
        summary, checkpoint, response = summarize_span(
            self.model, request, selection.tokens, self.meter.price
        )
        summary, checkpoint, gate = gated_checkpoint(
            self.config.gate, summary, checkpoint, shadowed, self.meter, selection.tokens
        )
        self._check_stable(header, before, selection, check)
        try:
            summary_event = self.log.append(
                "compaction/summary",
                self._summary_data(bracket.compaction_id, summary, response, selection) | gate,
            )
            checkpoint_event = self.log.replace_seqs(
                selection.seqs[0],
                selection.seqs[-1],
                checkpoint,
                extra_sources=(bracket.start.seq, summary_event.seq),
            )
        except Exception as exc:
            raise CommitError(f"the compaction failed while committing: {exc}") from exc
        return summary_event.seq, checkpoint_event.seq, summary

    def _summary_data(
        self,
        compaction_id: str,
        summary: str,
        response: ChatResponse,
        selection: CompactableRange,
    ) -> dict[str, object]:
        return {
            "engine": "dsh",
            "compaction_id": compaction_id,
            "summary": summary,
            "raw_output": response.message.content,
            "shadowed_range": {"start": selection.seqs[0], "end": selection.seqs[-1]},
            "shadowed_seqs": list(selection.seqs),
            "shadowed_token_count": selection.tokens,
            "meter": self.meter.name,
            "provider": provider_of(self.model),
            "model": response.model or self.model.model_name,
            "max_tokens": self.config.max_tokens,
            "usage": response.usage.to_dict() if response.usage else None,
        }

    def _check_stable(
        self,
        header: ChatRequest,
        before: Measurement,
        selection: CompactableRange,
        check: Check,
    ) -> None:
        now = self.measure(header)
        if check == "whole-surface":
            if now.nodes != before.nodes:
                raise SurfaceChangedError("the session surface changed during summarization")
            return
        span = slice(selection.start, selection.end + 1)
        if now.nodes[span] != before.nodes[span]:
            raise SurfaceChangedError("the selected span changed during summarization")

    def _record(
        self,
        header: ChatRequest,
        nodes: list[tuple[int, Message]],
        tokens: int,
        selection: CompactableRange,
        summary: str,
        trigger: str,
    ) -> CompactionRecord:
        cut = selection.end + 1
        after = self.read(header).tokens
        count = len(self.log.surface.nodes)
        reason = f"retain budget cut at {selection.naive_cut}" + (
            f", moved back to {cut} to keep tool calls with their results"
            if cut != selection.naive_cut
            else ""
        )
        lines = (
            f"DSH compaction ({trigger}): total={len(nodes)} nodes / {tokens} tokens, "
            f"replacing 0..{selection.end} ({selection.tokens} tokens), keeping={len(nodes) - cut}",
            f"Compacted to {count} nodes / {after} tokens",
        )
        for line in lines:
            logger.info(line)
        return CompactionRecord(
            engine="dsh",
            trigger=trigger,
            total_messages=len(nodes),
            total_tokens=tokens,
            cutoff=Cutoff(cut, selection.naive_cut, reason),
            keeping=len(nodes) - cut,
            messages_after=count,
            tokens_after=after,
            summary=summary,
            summary_failed=False,
            log_lines=lines,
            meter=self.meter.name,
        )
