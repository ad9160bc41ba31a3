"""The patches of the harness's safeguards (:mod:`experiments.mutations.catalogue_safeguards`):
the pre-compaction hooks, the overflow retry and DeepSeek-Harness's commit, pricing and summary
checks. Like :mod:`experiments.mutations.patches`, each breaks one behaviour from the suite."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

__all__ = [
    "backoff_forward",
    "consolidation_marks_daily",
    "disable_ignored",
    "flush_blocks",
    "flush_writes_memory",
    "injection_per_request",
    "interrupt_as_commit",
    "no_overflow_retry",
    "prune_not_progress",
    "read_file_offloaded",
    "replace_before_summary",
    "size_check_always",
    "size_check_off",
    "sources_shadowed_only",
    "span_check_only",
    "stale_pricing_accepted",
    "truncated_accepted",
    "workspace_at_root",
]


def flush_blocks(_original: Any) -> Any:
    def best_effort(hook: Any, prefix: Sequence[Any], what: str) -> None:
        hook(prefix)  # an error now leaves the compaction

    return best_effort


def disable_ignored(original: Any) -> Any:
    def engine(self: Any, config: Any, model: Any, summary: Any, windows: Any, off: bool) -> Any:
        return original(self, config, model, summary, windows, False)

    return engine


def interrupt_as_commit(original: Any) -> Any:
    from harness.errors import ManualCompactionError

    def classify(exc: BaseException) -> Any:
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):  # reported as a commit failure
            return ManualCompactionError("commit", f"{type(exc).__name__}: {exc}")
        return original(exc)

    return classify


def size_check_always(_original: Any) -> Any:
    def too_large(self: Any, plan: Any, compaction: Any) -> bool:
        if not compaction.messages:  # ctxlab's opt-in check, now on whatever the config says
            return False
        return bool(self.meter.price(compaction.messages[0]) >= self.meter.price_all(plan.prefix))

    return too_large


def workspace_at_root(original: Any) -> Any:
    from pathlib import Path

    def init(self: Any, root: Any, user_id: str = "default", clock: Any = None) -> None:
        here = Path(root)  # the user's folder is the root itself: no <userId>/ namespace
        original(self, here.parent, here.name, clock)

    return init


def span_check_only(original: Any) -> Any:
    def check_stable(self: Any, header: Any, before: Any, selection: Any, check: Any) -> None:
        original(self, header, before, selection, "selected-span")

    return check_stable


def no_overflow_retry(_original: Any) -> Any:
    def recover(self: Any, error: BaseException, call: Any, *_turn: Any) -> Any:
        raise error

    return recover


def replace_before_summary(_original: Any) -> Any:
    """The DSH commit with its two appends swapped: the replace message first (citing only
    the start), then the summary event."""
    from harness.compaction.dsh import summarize_span
    from harness.compaction.dsh.summarizer import gated_checkpoint

    def transaction(
        self: Any, bracket: Any, header: Any, request: Any, selected: Any, check: Any
    ) -> tuple[int, int, str]:
        before, selection, shadowed = selected
        summary, checkpoint, response = summarize_span(
            self.model, request, selection.tokens, self.meter.price
        )
        summary, checkpoint, gate = gated_checkpoint(
            self.config.gate, summary, checkpoint, shadowed, self.meter, selection.tokens
        )
        self._check_stable(header, before, selection, check)
        replaced = self.log.replace_seqs(
            selection.seqs[0], selection.seqs[-1], checkpoint, extra_sources=(bracket.start.seq,)
        )
        data = self._summary_data(bracket.compaction_id, summary, response, selection) | gate
        return self.log.append("compaction/summary", data).seq, replaced.seq, summary

    return transaction


def sources_shadowed_only(original: Any) -> Any:
    def replace_seqs(self: Any, start: int, end: int, message: Any, **_kw: Any) -> Any:
        return original(self, start, end, message)  # the start and summary seqs left out

    return replace_seqs


def stale_pricing_accepted(original: Any) -> Any:
    from harness.compaction.dsh import Measurement

    def select(nodes: Sequence[Any], measurement: Any, retain_tokens: int) -> Any:
        priced = dict(measurement.nodes)  # a node the pricing misses is priced 0, not refused
        aligned = tuple((seq, priced.get(seq, 0)) for seq, _ in nodes)
        return original(nodes, Measurement(measurement.header_tokens, aligned), retain_tokens)

    return select


def prune_not_progress(_original: Any) -> Any:
    """recover_overflow without its exception: a failed summary stage raises even after the
    prune made the surface smaller."""

    def recover(self: Any, header: Any) -> Any:
        if self.config.max_overflow_retries == 0:
            return []
        generation = self.log.surface.replace_generation
        self._prune()
        result = self._compact(header, 0, "overflow", "whole-surface")
        if self.log.surface.replace_generation == generation or result is None:
            return []
        return [result.event]

    return recover


def size_check_off(original: Any) -> Any:
    def summarize(model: Any, request: Any, shadowed_tokens: int, *_price: Any) -> Any:
        return original(model, request, shadowed_tokens, lambda message: 0)  # always "smaller"

    return summarize


@dataclasses.dataclass
class _Uncut:
    """A model whose answers all claim ``finish_reason="stop"``."""

    inner: Any

    @property
    def model_name(self) -> str:
        return str(self.inner.model_name)

    def complete(self, request: Any) -> Any:
        return dataclasses.replace(self.inner.complete(request), finish_reason="stop")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def truncated_accepted(original: Any) -> Any:
    def summarize(model: Any, request: Any, *args: Any) -> Any:
        return original(_Uncut(model), request, *args)  # a max-tokens cut is not seen

    return summarize


def backoff_forward(original: Any) -> Any:
    """A cutoff that splits a tool pair moves toward the tail (past the results) instead of
    toward the head."""
    from harness.compaction.agentscope import Cutoff

    def cutoff(messages: Sequence[Any], keep_messages: int, *args: Any, **kw: Any) -> Any:
        found = original(messages, keep_messages, *args, **kw)
        if found.index == found.naive_index:
            return found
        end = found.naive_index
        while end < len(messages) and messages[end].role == "tool":
            end += 1
        return Cutoff(end, found.naive_index, found.reason)

    return cutoff


def read_file_offloaded(original: Any) -> Any:
    def apply(self: Any, message: Any) -> Any:
        wider = dataclasses.replace(self, excluded_tools=self.excluded_tools - {"read_file"})
        return original(wider, message)

    return apply


def consolidation_marks_daily(original: Any) -> Any:
    def consolidate(self: Any) -> Any:
        outcome = original(self)
        if outcome.status == "written":  # the consumed ledgers get a marker appended
            for path in self.workspace.daily_files():
                path.write_text(path.read_text(encoding="utf-8") + "\n<!-- consolidated -->\n")
        return outcome

    return consolidate


def flush_writes_memory(original: Any) -> Any:
    def flush_chunk(self: Any, context: str, conversation: str) -> Any:
        entry = original(self, context, conversation)
        if entry is not None:  # the flush's facts go to MEMORY.md too, not only the ledger
            self.workspace.append_memory(entry.text)
        return entry

    return flush_chunk


def injection_per_request(original: Any) -> Any:
    """MEMORY.md read again before every request of a call, not once at its start: a
    memory_save of the call shows in its own later requests."""
    from harness.memory import MemoryRuntime, cut_memory, reference_message
    from harness.memory.render import REFERENCE_NAME

    def request(self: Any, call: Any) -> Any:
        for hook in self.hooks:
            if isinstance(hook, MemoryRuntime) and hook.config.injection == "user":
                kept = [m for m in call.reference_messages if m.name != REFERENCE_NAME]
                memory = hook.workspace.read_memory()
                if memory.strip() and (hook.hooks_enabled or hook.tools_enabled):
                    kept.append(
                        reference_message(cut_memory(memory, hook.config.max_context_tokens))
                    )
                call.reference_messages[:] = kept
        return original(self, call)

    return request
