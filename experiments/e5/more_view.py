"""E5's rows for seed claims that had none (hooks, disableCompaction, DSH's commit), as
:mod:`experiments.e5.compact_hooks` and :mod:`experiments.e5.dsh_commit` measure them: the
pre-compaction hooks' defaults, disableCompaction and the overflow retry, and DeepSeek-Harness's
commit, pricing check and overflow bookkeeping. Part of :class:`~experiments.e5.view.E5View`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CompactHooks",
    "DisabledOverflow",
    "DshCommit",
    "LargerSummary",
    "MoreMechanics",
    "Namespace",
    "PruneProgress",
    "RetryReset",
    "Stability",
]


@dataclass(frozen=True)
class CompactHooks:
    """AgentScope's default pre-compaction hooks, run on one compaction of a scripted agent."""

    flush_default: bool
    offload_default: bool
    truncate_args_default: bool
    """Whether ``truncate_args`` is configured by default (the seed: off)."""
    prefix_messages: int
    """Messages the compaction replaced."""
    flushed_messages: int
    """Messages the flush was handed before the summary (0 when it never ran)."""
    offloaded_messages: int
    """Messages of the prefix the transcript's ``compaction`` line holds."""
    compacted_despite_failing_flush: bool
    """A flush that raises: the compaction still replaced the prefix."""


@dataclass(frozen=True)
class DisabledOverflow:
    """An agent with compaction disabled, whose server answers its first request with a
    context-length error."""

    agent_requests: int
    """Agent requests the server saw in the overflowing call."""
    outcome: str
    """``raised`` when the error reached the caller, ``answered`` otherwise."""


@dataclass(frozen=True)
class LargerSummary:
    """One AgentScope compaction whose summary is longer than the prefix it replaces."""

    committed: bool
    summary_chars: int
    """The summary message's length (0 when nothing was committed)."""
    prefix_chars: int


@dataclass(frozen=True)
class DshCommit:
    """One DSH compaction's events on the log, in order from its ``compaction/start``."""

    event_types: tuple[str, ...]
    summary_then_replace: bool
    """The replace message's seq is the summary event's + 1 (appended back to back)."""
    source_event_seqs: tuple[int, ...]
    """The replace message's ``sourceEventSeqs``."""
    expected_sources: tuple[int, ...]
    """The chain read off the log: the compaction/start and compaction/summary events' seqs
    (found by type), then every node seq the surface lost (not what the engine reports)."""
    stale_pricing_error: str
    """The error selecting a range with a priced node missing from the surface ("" if none)."""


@dataclass(frozen=True)
class PruneProgress:
    """Overflow recovery whose summary stage fails, with and without a tool result to prune."""

    with_prune: str
    """``retry`` (the recovery reported progress) or ``raised``."""
    with_prune_trigger: str
    without_prune: str


@dataclass(frozen=True)
class RetryReset:
    """One call of a DSH agent whose server overflows twice, a tool round between the two."""

    recoveries: int
    outcome: str
    """``answered`` or ``raised``."""


@dataclass(frozen=True)
class Stability:
    """A message appended outside the span while the summary call runs."""

    automatic_error: str
    """The pressure compaction's compaction/end error ("" when it committed)."""
    manual_committed: bool


@dataclass(frozen=True)
class Namespace:
    """Where one user's session put its files, relative to the workspace root."""

    top_level: tuple[str, ...]
    """The names directly under the workspace root."""
    memory_files: tuple[str, ...]
    """Every MEMORY.md below the root."""


@dataclass(frozen=True)
class MoreMechanics:
    """The rows for seed claims that had none: hooks, disableCompaction, DSH's commit."""

    hooks: CompactHooks
    disabled_overflow: DisabledOverflow
    larger_summary: LargerSummary
    commit: DshCommit
    prune_progress: PruneProgress
    retry_reset: RetryReset
    stability: Stability
    namespace: Namespace
