"""The DeepSeek-Harness compaction engine over an append-only event log.

A compaction is a region transaction of four appended events, never a rewrite:

1. ``compaction/start`` — appended before the summary call; an unclosed start is the lock;
2. ``compaction/summary`` — summary text, raw output, the shadowed range and seqs, their
   price, model and usage (log only);
3. ``user/message`` — the framed checkpoint, a positional ``replace`` of the shadowed span
   whose sources cite the start, the summary and every shadowed node;
4. ``compaction/end`` — always last; a failed attempt ends with its ``error``.

Automatic compaction (pressure, overflow) requires the whole surface unchanged across the
summary call; manual compaction only the selected span.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from harness.compaction import CompactionEvent, Cutoff
from harness.dsh.config import DshConfig
from harness.dsh.meter import Measurement, measure
from harness.dsh.pruner import ToolResultPruner
from harness.dsh.selection import CompactableRange, select_compactable_range
from harness.dsh.summarizer import build_summary_request, summarize_span
from harness.errors import (
    CommitError,
    CompactionBusyError,
    CompactionError,
    SurfaceChangedError,
)
from harness.messages import Message
from harness.model import ChatModel, ChatRequest

if TYPE_CHECKING:
    from harness.eventlog import EventLog

__all__ = ["DshEngine", "DshResult"]

logger = logging.getLogger("harness.dsh")

Check = Literal["whole-surface", "selected-span"]


@dataclass(frozen=True)
class DshResult:
    """What one region transaction appended, and the event for reports."""

    event: CompactionEvent
    start_seq: int
    summary_seq: int
    checkpoint_seq: int
    end_seq: int
    summary_request: ChatRequest


class DshEngine:
    """Pressure, overflow and manual compaction for one event log."""

    def __init__(self, log: EventLog, model: ChatModel, config: DshConfig | None = None) -> None:
        self.log = log
        self.model = model
        self.config = config or DshConfig()
        self.results: list[DshResult] = []

    def measure(self, header: ChatRequest) -> Measurement:
        return measure(header, self.log.node_messages())

    def compact_if_needed(self, header: ChatRequest) -> list[CompactionEvent]:
        """The pressure path: below the threshold nothing happens; above it, up to
        ``1 + compaction_retries`` compactions until the request fits again."""
        threshold = self.config.threshold
        if self.measure(header).total < threshold:
            return []
        if self._prune() and self.measure(header).total < threshold:
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
            if self.measure(header).total < threshold:
                return events
        logger.warning(
            "still above the threshold (%d tokens) after %d compactions", threshold, len(events)
        )
        return events

    def recover_overflow(self, header: ChatRequest) -> list[CompactionEvent]:
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
        return ToolResultPruner().prune(self.log)

    def _prune_event(self) -> CompactionEvent:
        count = len(self.log.messages())
        line = "DSH overflow recovery: pruned tool results; the summary stage failed"
        logger.info(line)
        return CompactionEvent(
            trigger="overflow-prune",
            total_messages=count,
            total_tokens=0,
            cutoff=Cutoff(0, 0, "prune only"),
            keeping=count,
            messages_after=count,
            tokens_after=0,
            summary="",
            summary_failed=True,
            log_lines=(line,),
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
        busy = self.log.open_compaction()
        if busy is not None:
            raise CompactionBusyError(f"a compaction is already in progress (event {busy.seq})")
        self.log.require_balanced()  # a result without its call: corrupt, never compacted around
        nodes = self.log.node_messages()
        before = measure(header, nodes)
        selection = select_compactable_range(nodes, before, retain)
        if selection is None:
            return None
        return self._transaction(header, nodes, before, selection, trigger, check, instructions)

    def _transaction(
        self,
        header: ChatRequest,
        nodes: list[tuple[int, Message]],
        before: Measurement,
        selection: CompactableRange,
        trigger: str,
        check: Check,
        instructions: str,
    ) -> DshResult:
        compaction_id = uuid.uuid4().hex[:12]
        start = self.log.append(
            "compaction/start",
            {"engine": "dsh", "compaction_id": compaction_id, "trigger": trigger},
        )
        shadowed = [m for _, m in nodes[selection.start : selection.end + 1]]
        request = build_summary_request(header, shadowed, self.config.max_tokens, instructions)
        try:
            summary, checkpoint, response = summarize_span(self.model, request, selection.tokens)
            self._check_stable(header, nodes, before, selection, check)
        except Exception as exc:
            self._end(compaction_id, f"{type(exc).__name__}: {exc}")
            raise
        try:
            summary_event = self.log.append(
                "compaction/summary",
                {
                    "engine": "dsh",
                    "compaction_id": compaction_id,
                    "summary": summary,
                    "raw_output": response.message.content,
                    "shadowed_range": {"start": selection.seqs[0], "end": selection.seqs[-1]},
                    "shadowed_seqs": list(selection.seqs),
                    "shadowed_token_count": selection.tokens,
                    "model": response.model or self.model.model_name,
                    "max_tokens": self.config.max_tokens,
                    "usage": response.usage.to_dict() if response.usage else None,
                },
            )
            checkpoint_event = self.log.replace_seqs(
                selection.seqs[0],
                selection.seqs[-1],
                checkpoint,
                extra_sources=(start.seq, summary_event.seq),
            )
        except Exception as exc:
            raise CommitError(f"the compaction failed while committing: {exc}") from exc
        end = self._end(compaction_id, None)
        event = self._event(header, nodes, before, selection, summary, trigger)
        result = DshResult(event, start.seq, summary_event.seq, checkpoint_event.seq, end, request)
        self.results.append(result)
        return result

    def _end(self, compaction_id: str, error: str | None) -> int:
        return self.log.append(
            "compaction/end", {"compaction_id": compaction_id, "error": error}
        ).seq

    def _check_stable(
        self,
        header: ChatRequest,
        nodes: list[tuple[int, Message]],
        before: Measurement,
        selection: CompactableRange,
        check: Check,
    ) -> None:
        now = measure(header, self.log.node_messages())
        if check == "whole-surface":
            if now.nodes != before.nodes:
                raise SurfaceChangedError("the session surface changed during summarization")
            return
        span = slice(selection.start, selection.end + 1)
        if now.nodes[span] != before.nodes[span]:
            raise SurfaceChangedError("the selected span changed during summarization")

    def _event(
        self,
        header: ChatRequest,
        nodes: list[tuple[int, Message]],
        before: Measurement,
        selection: CompactableRange,
        summary: str,
        trigger: str,
    ) -> CompactionEvent:
        cut = selection.end + 1
        after = self.measure(header)
        reason = f"retain budget cut at {selection.naive_cut}" + (
            f", moved back to {cut} to keep tool calls with their results"
            if cut != selection.naive_cut
            else ""
        )
        lines = (
            f"DSH compaction ({trigger}): total={len(nodes)} nodes / {before.total} tokens, "
            f"replacing 0..{selection.end} ({selection.tokens} tokens), keeping={len(nodes) - cut}",
            f"Compacted to {len(after.nodes)} nodes / {after.total} tokens",
        )
        for line in lines:
            logger.info(line)
        return CompactionEvent(
            trigger=trigger,
            total_messages=len(nodes),
            total_tokens=before.total,
            cutoff=Cutoff(cut, selection.naive_cut, reason),
            keeping=len(nodes) - cut,
            messages_after=len(after.nodes),
            tokens_after=after.total,
            summary=summary,
            summary_failed=False,
            log_lines=lines,
        )
