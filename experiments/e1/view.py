"""E1's view: the history before and after one compaction, and where the cut fell.

:mod:`experiments.e1` builds an :class:`E1View` and writes it as ``E1.json``; its claims
(:mod:`experiments.e1`) and its page (:mod:`experiments.e1.page`) read it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CutoffMessage", "E1Config", "E1View", "MessageRow", "Rerun", "WireCall"]


@dataclass(frozen=True)
class E1Config:
    """The compaction setup, as the article gives it."""

    trigger_messages: int
    keep_messages: int
    keep_tokens: int
    flush_before_compact: bool
    offload_before_compact: bool


@dataclass(frozen=True)
class WireFunction:
    name: str
    arguments: str


@dataclass(frozen=True)
class WireCall:
    """A tool call as the chat API sends it."""

    id: str
    type: str
    function: WireFunction


@dataclass(frozen=True)
class MessageRow:
    """One message of E1's history."""

    index: int
    role: str
    kind: str
    """``summary``, ``user``, ``assistant``, ``tool_use`` or ``tool_result``."""
    text: str
    tool_calls: tuple[WireCall, ...]
    estimated_tokens: int

    @property
    def shown(self) -> str:
        """The message text, or its tool calls as ``name(arguments)`` when it has no text."""
        calls = "; ".join(f"{c.function.name}({c.function.arguments})" for c in self.tool_calls)
        return self.text or calls


@dataclass(frozen=True)
class CutoffMessage:
    """The message a cutoff falls on."""

    index: int
    role: str
    kind: str


@dataclass(frozen=True)
class Rerun:
    """The rerun check: a second run in the same process, compared byte for byte."""

    identical: bool
    sha256: str
    """SHA-256 of the first run's JSON (without this record)."""


@dataclass(frozen=True)
class TriggerProbe:
    """One check of the count trigger alone: does a history of ``messages`` messages compact
    under ``trigger`` (0 = the count trigger off)?"""

    trigger: int
    messages: int
    fires: bool


@dataclass(frozen=True)
class E1View:
    """E1: the history before and after one compaction, and where the cut fell."""

    experiment: str
    source: str
    config: E1Config
    thresholds: str
    """How the compactor resolved its thresholds, in words."""
    before: tuple[MessageRow, ...]
    total_messages: int
    estimated_tokens: int
    naive_cutoff: int
    """``len − keep``: where a cut that ignores tool pairs would fall."""
    naive_cutoff_message: CutoffMessage
    cutoff: int
    """The safe cutoff the compactor used."""
    keeping: int
    reason: str
    log_lines: tuple[str, ...]
    summary_requests: int
    after: tuple[MessageRow, ...]
    after_estimated_tokens: int
    default_removed: int = 0
    """Messages AgentScope's default config (trigger 50, keep 20) removes from 50 plain
    messages (no tool call)."""
    trigger_probes: tuple[TriggerProbe, ...] = ()
    """The count trigger at its edge (5 and 6 messages under trigger 6) and off (trigger 0)."""
    after_pairing: str = "held"
    """``held``, or why the history after the compaction breaks tool pairing (a harness
    that cuts between a call and its result: the rows that read the cut then differ)."""
    rerun: Rerun | None = None
    """Set by :func:`experiments.e1.run`; None for a single :func:`~experiments.e1.measure`."""

    @property
    def summary(self) -> str:
        """The summary message's text after compaction, or an empty string."""
        return next((m.text for m in self.after if m.kind == "summary"), "")
