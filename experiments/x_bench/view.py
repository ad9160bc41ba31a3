"""X-BENCH's view: every conversation under every condition that could run, scored.

:mod:`experiments.x_bench` builds an :class:`XBenchView` and writes it as ``X-BENCH.json``; its
claims (:mod:`experiments.x_bench.claims`) and its page
(:mod:`experiments.x_bench.page`) read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "BudgetRecord",
    "CellRecord",
    "ConditionRecord",
    "PairRecord",
    "RunRecord",
    "XBenchView",
]


@dataclass(frozen=True)
class BudgetRecord:
    size: str
    trigger_tokens: int
    keep_tokens: int


@dataclass(frozen=True)
class RunRecord:
    """One conversation under one condition."""

    conversation: str
    lang: str
    size: str
    condition: str
    model: str
    """The summary model's set, or ``none`` for a condition run with no model."""
    compactions: int
    survival: float
    survived: list[str]
    lost: list[str]
    in_tail: list[str]
    """Facts whose planting turn is verbatim in the final context (its user message is)."""
    carried_tokens: list[int]
    compression: list[float]
    final_tokens: int
    invented: list[str]
    agent_prompt_tokens: int
    continuation_prompt_tokens: int
    summary_calls: int
    failed_summaries: int
    """Compactions whose summary call failed (AgentScope's fail-open placeholder took its
    place)."""
    summary_tokens: int
    net_tokens: int
    """Agent-request tokens saved against the full context (over the turns this run played),
    minus the summary calls' tokens."""
    net_continuation_tokens: int
    """The same over the continuation turns only (summary calls counted in full)."""
    turns_after_last_compaction: int
    answered: bool
    correct: int | None
    """Probe answers judged correct; None when no model answered."""
    window_share: float | None
    """Truncation only: the share of facts whose planting turn is in the kept window, computed
    from the turn indices (not from the context's text)."""
    stopped_at: int | None = None
    """The turn during which the condition's thrash guard stopped the session (ctxlab's
    profile): the turns after it were not played, and their facts count as lost. None when
    every turn was played."""
    questions: int = 0
    """The probe's questions (one per fact, abstentions included); 0 when no model answered."""
    oversized: int = 0
    """Compactions whose summary cost at least the span it replaced (the context was no smaller
    right after: AgentScope 2.0.3 has no size check)."""


@dataclass(frozen=True)
class CellRecord:
    """Survival of one condition over one group of facts (a kind or a depth band)."""

    condition: str
    model: str
    group: str
    facts: int
    survived: int
    share: float
    low: float
    high: float
    """The 95 % bootstrap interval over conversations (seeded)."""


@dataclass(frozen=True)
class ConditionRecord:
    name: str
    title: str
    needs_model: bool
    status: str
    """``run`` or ``not recorded yet``."""
    conversations: int
    survival: float
    low: float
    high: float
    mean_final_tokens: float
    mean_carried_tokens: float
    compactions: int
    invented: int
    model: str = "none"
    """The model the runs were played with: ``none`` (no model call) or a recorded set."""
    stopped: int = 0
    """Runs that the condition's thrash guard stopped before the conversation's last turn."""


@dataclass(frozen=True)
class PairRecord:
    """A paired bootstrap of the per-conversation survival of two conditions."""

    better: str
    worse: str
    model: str
    difference: float
    low: float
    high: float
    conversations: int


@dataclass(frozen=True)
class XBenchView:
    experiment: str
    source: str
    generator_version: int
    conversations: list[str]
    budgets: list[BudgetRecord]
    conditions: list[ConditionRecord]
    by_kind: list[CellRecord]
    by_band: list[CellRecord]
    pairs: list[PairRecord]
    runs: list[RunRecord]
    not_recorded: list[str]
    """Conditions that need a summary model and have no cassette yet (never faked)."""
    reference: str
    """Where the reference prompt comes from."""
    heldout: list[RunRecord] = field(default_factory=list)
    """The runs of the held-out conversations X-BENCH records (phrasing the profile was not
    written against), kept apart: no table or claim of the tune split pools them
    (:mod:`experiments.x_bench.heldout_claims`)."""
