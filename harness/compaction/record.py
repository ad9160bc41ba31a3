"""What one compaction did, for either engine: :class:`CompactionRecord`.

Not an event-log :class:`~harness.store.eventlog.events.Event`: a record the agent returns
(``CallResult.compactions``) and the reports read. Both engines fill it; ``engine`` says which.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["CompactionRecord", "Cutoff", "EngineName"]

EngineName = Literal["agentscope", "dsh"]
"""The two compaction engines, as the event log and the records name them."""


@dataclass(frozen=True)
class Cutoff:
    """The split of a history into a summarised prefix ``[:index]`` and a kept tail ``[index:]``."""

    index: int
    """The safe cutoff: the first message kept verbatim. 0 means nothing can be compacted."""
    naive_index: int
    """Where the cutoff fell before the pairing rule moved it."""
    reason: str
    """Why the cutoff is where it is, in one sentence."""

    @property
    def moved(self) -> bool:
        """True when the pairing rule moved the cutoff away from the naive one."""
        return self.index != self.naive_index


@dataclass(frozen=True)
class CompactionRecord:
    """What one compaction did, with the numbers its log lines report."""

    engine: EngineName
    """Which engine compacted."""
    trigger: str
    """``messages``, ``tokens``, ``messages+tokens`` or ``overflow`` (forced)."""
    total_messages: int
    total_tokens: int | None
    """None when the engine did not price the history (DSH's prune-only overflow recovery)."""
    cutoff: Cutoff | None
    """None when nothing was summarised (DSH's prune-only overflow recovery)."""
    keeping: int
    """Messages kept verbatim after the summary."""
    messages_after: int
    tokens_after: int | None
    summary: str
    """The summary text (without the message's fixed opening line)."""
    summary_failed: bool
    log_lines: tuple[str, ...]
    meter: str = ""
    """The token meter that priced ``total_tokens`` and ``tokens_after``."""
    provider: str = ""
    """Who served the summary call (:func:`harness.model.provider_of`); the event log records
    it on ``compaction/summary``."""

    gate: dict[str, object] | None = None
    """What the identifier-survival gate added (:meth:`harness.compaction.guards.gate.GateResult.
    to_record`); None when the gate is off. ``summary`` already holds the added section."""
    pin: dict[str, object] | None = None
    """What the pin kept of the user's own words (:meth:`harness.compaction.guards.pin.PinResult.
    to_record`); None when the pin is off. ``summary`` already holds the pinned section."""

    @property
    def cut(self) -> int:
        """The cutoff index: the number of messages summarised (0 when none was)."""
        return self.cutoff.index if self.cutoff is not None else 0

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "trigger": self.trigger,
            "total_messages": self.total_messages,
            "total_tokens": self.total_tokens,
            "naive_cutoff": self.cutoff.naive_index if self.cutoff else None,
            "cutoff": self.cutoff.index if self.cutoff else None,
            "cutoff_reason": self.cutoff.reason if self.cutoff else None,
            "keeping": self.keeping,
            "messages_after": self.messages_after,
            "tokens_after": self.tokens_after,
            "summary": self.summary,
            "summary_chars": len(self.summary),
            "summary_failed": self.summary_failed,
            "log_lines": list(self.log_lines),
            "meter": self.meter,
        }
        if self.gate is not None:
            data["gate"] = self.gate
        if self.pin is not None:
            data["pin"] = self.pin
        return data
