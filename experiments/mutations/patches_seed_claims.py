"""The patches of :mod:`experiments.mutations.catalogue_seed_claims`: the behaviours the seed
claims without a row until then rest on, each broken the plausible way (recovery for any 400, a
threshold moved by one or compared with ``>``, a switch that stops too much or too little, a hook
that runs after a failed call, the watermark moved before MEMORY.md is written)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

__all__ = [
    "after_failed_call",
    "archive_at_limit",
    "cap_one_token_higher",
    "check_first_request_only",
    "drops_checkpoint",
    "hooks_off_keeps_maintenance",
    "offload_one_above",
    "pressure_strictly_above",
    "retain_strictly",
    "smaller_strictly",
    "source_without_lines",
    "summary_without_tools",
    "tools_off_stops_flush",
    "watermark_before_write",
]


def pressure_strictly_above(original: Any) -> Any:
    """The DSH pressure check compacts only above the threshold (``>``, not ``>=``)."""

    def compact_if_needed(self: Any, header: Any) -> Any:
        if self.read(header).tokens <= self.config.threshold:
            return []
        return original(self, header)

    return compact_if_needed


def offload_one_above(original: Any) -> Any:
    """The offload threshold is one character higher (80,001)."""

    def apply(self: Any, message: Any) -> Any:
        return original(dataclasses.replace(self, max_chars=self.max_chars + 1), message)

    return apply


def tools_off_stops_flush(original: Any) -> Any:
    """``disable_memory_tools`` stops the after-call flush too (maintenance still runs)."""

    def after_call(self: Any, call: Any, result: Any) -> None:
        if self.hooks_enabled and not self.tools_enabled:
            self.background.after_call(lambda: None, self.maintain)
            return
        original(self, call, result)

    return after_call


def hooks_off_keeps_maintenance(original: Any) -> Any:
    """``disable_memory_hooks`` stops the flush but not maintenance."""

    def after_call(self: Any, call: Any, result: Any) -> None:
        if not self.hooks_enabled:
            self.background.after_call(lambda: None, self.maintain)
            return
        original(self, call, result)

    return after_call


def after_failed_call(original: Any) -> Any:
    """The hooks' ``after_call`` (flush, maintenance) runs after a failed call too."""
    from harness import CallResult
    from harness.hooks import CallContext

    def call(self: Any, user_text: str) -> Any:
        try:
            return original(self, user_text)
        except Exception:
            result = CallResult("", (), (), 0, 0, tuple(self._call_messages))
            for hook in self.hooks:
                hook.after_call(CallContext(user_text), result)
            raise

    return call


def archive_at_limit(original: Any) -> Any:
    """A daily file of exactly the retention age is archived too."""

    def archive_old(self: Any, retention_days: int = 90) -> Any:
        return original(self, retention_days - 1)

    return archive_old


SOURCE_LINE = re.compile(r"^(Source: [^#\n]+)#\d+", re.MULTILINE)


def source_without_lines(original: Any) -> Any:
    """memory_search's ``Source:`` lines name the file without a line number."""

    def memory_search(self: Any, query: str) -> str:
        return SOURCE_LINE.sub(r"\1", original(self, query))

    return memory_search


def check_first_request_only(original: Any) -> Any:
    """The engine's pressure check runs before a call's first request only (once per call)."""

    def check(self: Any, call: Any) -> Any:
        if call.requests == 0:
            return original(self, call)
        engine, self.engine = self.engine, None
        try:
            return original(self, call)
        finally:
            self.engine = engine

    return check


def summary_without_tools(original: Any) -> Any:
    """The DSH summary request loses the routed request's tools."""

    def build(*args: Any, **kwargs: Any) -> Any:
        return dataclasses.replace(original(*args, **kwargs), tools=())

    return build


def drops_checkpoint(original: Any) -> Any:
    """An earlier DSH checkpoint is left out of the next summary request (dropped, not
    merged)."""
    from harness.compaction.dsh import CHECKPOINT_NAME

    def build(header: Any, shadowed: Any, *rest: Any, **kwargs: Any) -> Any:
        kept = [m for m in shadowed if m.name != CHECKPOINT_NAME]
        return original(header, kept or list(shadowed), *rest, **kwargs)

    return build


def smaller_strictly(original: Any) -> Any:
    """A DSH summary exactly as large as what it replaces is accepted (``>``, not ``>=``)."""

    def summarize(model: Any, request: Any, shadowed_tokens: int, *rest: Any) -> Any:
        return original(model, request, shadowed_tokens + 1, *rest)

    return summarize


def cap_one_token_higher(original: Any) -> Any:
    """MEMORY.md's injection cap is one token higher (8,001)."""

    def cut_memory(text: str, max_tokens: int) -> str:
        return str(original(text, max_tokens + 1))

    return cut_memory


def retain_strictly(original: Any) -> Any:
    """The DSH tail goes on until it holds more than the retain budget (``>``, not ``>=``)."""

    def select(nodes: Any, measurement: Any, retain_tokens: int) -> Any:
        return original(nodes, measurement, retain_tokens + 1)

    return select


def watermark_before_write(original: Any) -> Any:
    """Consolidation advances the watermark before MEMORY.md is written, so a failed write
    loses its batch."""

    def commit(self: Any, memory: str, watermark: int, text: str, fresh: Any, **kw: Any) -> Any:
        newest = fresh[-1].instant
        self.workspace.write_watermark(newest)
        return original(self, memory, newest, text, fresh, **kw)

    return commit
