"""E3's view: five rounds of a real agent with trigger 5 / keep 2.

:mod:`experiments.e3` builds an :class:`E3View` and writes it as ``E3.json``; its claims
(:mod:`experiments.e3.claims`) and its page (:mod:`experiments.e3.page`) read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lab import RecordedView

if TYPE_CHECKING:
    from harness.compaction.record import CompactionRecord

__all__ = [
    "CompactionRow",
    "ContextMessage",
    "E3Config",
    "E3View",
    "RoundRow",
    "SummaryMessage",
    "UsageRecord",
]


@dataclass(frozen=True)
class E3Config:
    """The agent's setup, as the article gives it."""

    trigger_messages: int
    trigger_tokens: int | None
    keep_messages: int
    keep_tokens: int
    memory: str
    tools: str


@dataclass(frozen=True)
class UsageRecord:
    """What the provider reported for a request."""

    prompt_tokens: int | None
    completion_tokens: int | None
    cached_tokens: int | None = None


@dataclass(frozen=True)
class CompactionRow:
    """One AgentScope compaction as the reports read it, built from the harness's
    :class:`~harness.compaction.record.CompactionRecord` by :meth:`of`."""

    trigger: str
    total_messages: int
    total_tokens: int
    naive_cutoff: int
    cutoff: int
    cutoff_reason: str
    keeping: int
    messages_after: int
    tokens_after: int
    summary: str
    summary_chars: int
    summary_failed: bool = False
    log_lines: tuple[str, ...] = ()
    meter: str = ""

    @classmethod
    def of(cls, record: CompactionRecord) -> CompactionRow:
        """The row of ``record``, an AgentScope compaction (it always has a cutoff and prices
        the history before and after)."""
        cutoff = record.cutoff
        if cutoff is None or record.total_tokens is None or record.tokens_after is None:
            raise ValueError(f"not an AgentScope compaction (engine {record.engine}): {record}")
        return cls(
            trigger=record.trigger,
            total_messages=record.total_messages,
            total_tokens=record.total_tokens,
            naive_cutoff=cutoff.naive_index,
            cutoff=cutoff.index,
            cutoff_reason=cutoff.reason,
            keeping=record.keeping,
            messages_after=record.messages_after,
            tokens_after=record.tokens_after,
            summary=record.summary,
            summary_chars=len(record.summary),
            summary_failed=record.summary_failed,
            log_lines=record.log_lines,
            meter=record.meter,
        )


@dataclass(frozen=True)
class ContextMessage:
    """One message of the agent's context after a round."""

    role: str
    kind: str
    """``summary`` for the compaction summary, else the role's kind."""
    name: str | None
    text: str = ""


@dataclass(frozen=True)
class RoundRow:
    """One round of E3: the user's message, the context around the call, any compaction."""

    round: int
    user: str
    answer: str
    visible_before: int
    """Messages in the history when the call started."""
    visible_after: int
    """Messages in the history when the call ended."""
    context_at_request: int
    estimated_tokens_after: int
    usage: UsageRecord | None
    compaction: CompactionRow | None
    """The compaction before this round's request; None in rounds without one."""
    context_after: tuple[ContextMessage, ...]

    @property
    def compacted(self) -> bool:
        """Whether compaction fired in this round."""
        return self.compaction is not None

    @property
    def summary(self) -> str:
        """The summary this round's compaction wrote, or an empty string."""
        return self.compaction.summary if self.compaction else ""

    @property
    def request_context(self) -> tuple[ContextMessage, ...]:
        """The messages the round's request carried: the context after it, less the answer."""
        return self.context_after[:-1]


@dataclass(frozen=True)
class SummaryMessage:
    """The summary message in the final context."""

    role: str
    name: str | None
    text: str


@dataclass(frozen=True)
class E3View(RecordedView):
    """E3: five rounds of a real agent with trigger 5 / keep 2."""

    config: E3Config
    rounds: tuple[RoundRow, ...]
    """In round order."""
    final_summary_message: SummaryMessage | None
    session_log_users: tuple[str, ...] = ()
    """The user messages the session log (the transcript) holds after the five rounds, in
    order, summaries left out."""
    summary_requests: tuple[str, ...] = ()
    """The text each summary request carried (its one user message: the prompt and the
    transcript of the prefix), in order: what the summariser was given, as sent."""

    def __post_init__(self) -> None:
        numbers = [r.round for r in self.rounds]
        if numbers != sorted(numbers):
            raise ValueError("'rounds' are not in round order")

    @property
    def final_summary(self) -> str:
        """The text of the summary message in the final context; empty without one."""
        return self.final_summary_message.text if self.final_summary_message else ""

    @property
    def compacted_rounds(self) -> tuple[int, ...]:
        """The rounds in which compaction fired."""
        return tuple(r.round for r in self.rounds if r.compacted)

    def round(self, number: int) -> RoundRow:
        """Round ``number`` (1-based); KeyError when there is none."""
        found = next((r for r in self.rounds if r.round == number), None)
        if found is None:
            raise KeyError(f"E3 has no round {number}")
        return found
