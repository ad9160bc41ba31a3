"""The memory pipeline of one user, as an agent hook plus tools.

* at call start: MEMORY.md is injected (cut at ``max_context_tokens``) and the recall guidance
  joins the system prompt;
* after a successful call, in the background: the flush (facts of this call → today's ledger)
  and maintenance (archive old daily files; consolidate when the schedule allows);
* before a compaction: the prefix is flushed (:meth:`MemoryRuntime.flush_prefix`, handed to the
  AgentScope engine as ``make_engine(..., flush=...)``, which runs it between plan and summary);
* by hand: :meth:`MemoryRuntime.consolidate_now`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import get_args

from harness.errors import ConfigError
from harness.hooks import AgentHook, CallContext
from harness.memory.background import BackgroundOrder, BackgroundTasks
from harness.memory.consolidation import ConsolidationOutcome, Consolidator, MaintenanceSchedule
from harness.memory.flush import FlushPolicy, MemoryFlusher
from harness.memory.injection import (
    RECALL_GUIDANCE,
    InjectionPosition,
    cut_memory,
    memory_block,
    reference_message,
)
from harness.memory.tools import MemoryTools
from harness.memory.workspace import MemoryWorkspace
from harness.messages import Message
from harness.model import ChatModel
from harness.results import CallResult
from harness.tools import Tool
from harness.validation import count, seconds, whole_number

__all__ = ["MemoryConfig", "MemoryRuntime"]


@dataclass(frozen=True)
class MemoryConfig:
    """Memory settings; the defaults are AgentScope 2.0.3's."""

    flush_policy: FlushPolicy = field(default_factory=FlushPolicy.always)
    consolidation_max_tokens: int = 4_000
    """Cap on the rewritten MEMORY.md (consolidationMaxTokens)."""
    consolidation_min_gap_seconds: float = 30 * 60
    """Maintenance runs at once after the first call, then at most this often."""
    max_context_tokens: int = 8_000
    """MEMORY.md is cut at this many tokens when injected (maxContextTokens), and in the flush
    and consolidation requests too."""
    max_request_tokens: int = 20_000
    """ctxlab's own bound (no seed states one) on each flush and consolidation request, in
    estimated tokens: a longer conversation is flushed in chunks, fresh entries are consolidated
    in batches. Requests under it are exactly as before, so the seed's runs are unchanged."""
    injection: InjectionPosition = "user"
    """``user``: a HARNESS_CONTEXT reference message (the article); ``system``: appended to the
    system prompt (the released AgentScope code)."""
    daily_retention_days: int = 90
    background_order: BackgroundOrder = "concurrent"
    """Order of flush and maintenance after a call; fix it for reproducible runs."""

    def __post_init__(self) -> None:
        count("MemoryConfig consolidation_max_tokens", self.consolidation_max_tokens)
        count("MemoryConfig max_context_tokens", self.max_context_tokens)
        count("MemoryConfig max_request_tokens", self.max_request_tokens)
        whole_number("MemoryConfig daily_retention_days", self.daily_retention_days)
        seconds(
            "MemoryConfig consolidation_min_gap_seconds",
            self.consolidation_min_gap_seconds,
            allow_zero=True,
        )
        if not isinstance(self.flush_policy, FlushPolicy):
            raise ConfigError(
                f"MemoryConfig flush_policy must be a FlushPolicy, not {self.flush_policy!r}."
            )
        if self.injection not in ("user", "system"):
            raise ConfigError(
                f"MemoryConfig injection must be 'user' or 'system', not {self.injection!r}."
            )
        if self.background_order not in get_args(BackgroundOrder):
            raise ConfigError(
                f"MemoryConfig background_order must be one of {get_args(BackgroundOrder)}, "
                f"not {self.background_order!r}."
            )


class MemoryRuntime(AgentHook):
    """Flush, consolidation, injection and tools for one workspace."""

    def __init__(
        self,
        workspace: MemoryWorkspace,
        model: ChatModel,
        config: MemoryConfig | None = None,
        *,
        hooks_enabled: bool = True,
        tools_enabled: bool = True,
        schedule: MaintenanceSchedule | None = None,
    ) -> None:
        self.config = config or MemoryConfig()
        self.workspace = workspace
        self.hooks_enabled = hooks_enabled
        self.tools_enabled = tools_enabled
        cap, budget = self.config.max_context_tokens, self.config.max_request_tokens
        self.flusher = MemoryFlusher(
            model, workspace, self.config.flush_policy, memory_tokens=cap,
            max_request_tokens=budget,
        )  # fmt: skip
        self.consolidator = Consolidator(
            model, workspace, self.config.consolidation_max_tokens, memory_tokens=cap,
            max_request_tokens=budget,
        )  # fmt: skip
        self.schedule = schedule or MaintenanceSchedule.shared(
            str(workspace.base.resolve()),
            workspace.clock,
            self.config.consolidation_min_gap_seconds,
        )
        self.background = BackgroundTasks(self.config.background_order)
        self.maintenance_log: list[ConsolidationOutcome | None] = []

    def tools(self) -> list[Tool]:
        """The memory tools, or none when they are disabled."""
        return MemoryTools(self.workspace).tools() if self.tools_enabled else []

    def on_call_start(self, call: CallContext) -> None:
        if not (self.hooks_enabled or self.tools_enabled):
            return
        memory = self.workspace.read_memory()
        if memory.strip():
            text = cut_memory(memory, self.config.max_context_tokens)
            if self.config.injection == "user":
                call.reference_messages.append(reference_message(text))
            else:
                call.system_suffix.append(memory_block(text))
        if self.tools_enabled:
            call.system_suffix.append(RECALL_GUIDANCE)

    def after_call(self, call: CallContext, result: CallResult) -> None:
        if self.hooks_enabled:
            messages = result.messages
            self.background.after_call(lambda: self.flusher.after_call(messages), self.maintain)

    def flush_prefix(self, prefix: Sequence[Message]) -> None:
        """The pre-compaction flush (best effort; the compactor logs a failure)."""
        if self.hooks_enabled:
            self.flusher.flush(prefix)

    def maintain(self) -> ConsolidationOutcome | None:
        """Archive and consolidate if the schedule allows; None when it did not."""
        if not self.schedule.try_claim():
            self.maintenance_log.append(None)
            return None
        self.workspace.archive_old(self.config.daily_retention_days)
        outcome = self.consolidator.consolidate()
        self.maintenance_log.append(outcome)
        return outcome

    def consolidate_now(self) -> ConsolidationOutcome:
        """Consolidate by hand, whatever the schedule says."""
        return self.consolidator.consolidate()

    def await_quiescence(self, timeout: float = 60.0) -> bool:
        """Wait for the background flush and maintenance; False on timeout."""
        return self.background.await_quiescence(timeout)

    def close(self) -> None:
        self.background.close()
