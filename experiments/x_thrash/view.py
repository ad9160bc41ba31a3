"""X-THRASH's view: one scripted session without and with the thrash guard, and the refill bound.

:mod:`experiments.x_thrash` builds an :class:`XThrashView` and writes it as ``X-THRASH.json``;
its claims (:mod:`experiments.x_thrash.claims`) and its page
(:mod:`experiments.x_thrash.page`) read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.compaction.guards.thrash import ThrashSkip

__all__ = ["GuardConfigRecord", "GuardRecord", "RefillRun", "SessionRun", "XThrashView"]


@dataclass(frozen=True)
class GuardConfigRecord:
    """The thrash guard's settings (:class:`~harness.compaction.guards.thrash.ThrashConfig`)."""

    min_removed_fraction: float
    refill_requests: int
    max_refills: int


@dataclass(frozen=True)
class GuardRecord:
    """What the guard did in one session."""

    skipped: dict[str, int]
    """The compactions it refused, by reason."""
    log_lines: int
    """The guard's log lines counted during the session."""
    allowed: int
    refills: int
    last_skip: ThrashSkip | None


@dataclass(frozen=True)
class SessionRun:
    """One run of the long session."""

    turns: int
    requests: int
    compactions: int
    summary_calls: int
    compactions_per_100_turns: float
    summary_calls_per_100_turns: float
    triggers: dict[str, int]
    """Compactions by what fired them."""
    largest_request_tokens: int
    agent_prompt_tokens: int
    summary_prompt_tokens: int
    prompt_tokens_per_100_turns: int
    """Agent and summary requests' prompt tokens (AgentScope's estimator) per 100 turns."""
    context_messages_at_end: int
    pairing_errors: int
    """Agent requests sent with a tool call separated from its result (every request is
    checked, not only the context at the end of a turn)."""
    guard: GuardRecord | None
    """None for the run without a guard."""

    @property
    def skipped(self) -> dict[str, int]:
        """The guard's skips by reason (empty without a guard)."""
        return self.guard.skipped if self.guard else {}

    @property
    def last_skip_line(self) -> str:
        """The guard's last skip log line, or an empty string."""
        last = self.guard.last_skip if self.guard else None
        return last.line if last else ""


@dataclass(frozen=True)
class RefillRun:
    """The short count-mode session that refills after every compaction."""

    compactions: int
    stopped_at_call: int | None
    """The call the guard stopped the session at; None when it never stopped."""
    error: str | None
    """``<type>: <message>`` of the error that stopped it."""


@dataclass(frozen=True)
class XThrashView:
    """X-THRASH: the config, both runs and the refill session."""

    experiment: str
    source: str
    model: str
    thresholds: str
    """How the compactor resolved its thresholds, in words."""
    trigger_messages: int
    trigger_tokens: int | None
    keep_tokens: int
    context_window: int
    guard_config: GuardConfigRecord
    without_guard: SessionRun
    with_guard: SessionRun
    refill: RefillRun
