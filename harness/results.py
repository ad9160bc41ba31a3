"""What a call of the agent produced: :class:`CallResult`, one :class:`RequestRecord` per model
request.

Plain frozen records with no behaviour of their own (openai-agents keeps its ``RunResult`` in
``result.py`` for the same reason): the loop (:mod:`harness.agent`), the hooks
(:mod:`harness.hooks`), the memory pipeline and the errors that carry a partial call
(:attr:`harness.errors.AgentError.partial`) all read them, and none of them needs the loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.compaction.guards.recall import RecallRecord
from harness.compaction.record import CompactionRecord
from harness.messages import Message
from harness.model import Usage

__all__ = ["CallResult", "RequestRecord"]


@dataclass(frozen=True)
class RequestRecord:
    """One model request of a call."""

    purpose: str
    messages_sent: int
    """Messages in the request, system prompt and reference material included."""
    context_messages: int
    """Messages of the working history in the request."""
    estimated_tokens: int
    usage: Usage | None
    compactions: tuple[CompactionRecord, ...] = ()
    """The compactions that ran for this request: the one before it, and a forced one when
    the server said the context was too long."""
    meter: str = ""
    """The compaction engine's token meter (empty without compaction)."""
    metered_tokens: int | None = None
    """That meter's reading of this request, before its usage was known (None without
    compaction)."""
    recall: RecallRecord | None = None
    """What the engine's recall put in this request as reference material
    (:mod:`harness.compaction.guards.recall`); None when its engine has no recall on."""

    @property
    def compaction(self) -> CompactionRecord | None:
        """The first compaction of this request, if any."""
        return self.compactions[0] if self.compactions else None


@dataclass(frozen=True)
class CallResult:
    """What one call produced (or, on :attr:`~harness.errors.AgentError.partial`, what it had
    produced when it stopped)."""

    text: str
    """The model's final answer ("" when the call stopped before one)."""
    tool_calls: tuple[str, ...]
    """Names of the tools the model called, in order."""
    requests: tuple[RequestRecord, ...]
    context_before: int
    """History size when the call started (before the user's message)."""
    context_after: int
    """History size when the call ended."""
    messages: tuple[Message, ...] = ()
    """The messages this call added (user, replies, tool results), even if compacted away."""

    @property
    def usage(self) -> tuple[Usage | None, ...]:
        """Usage per model request."""
        return tuple(r.usage for r in self.requests)

    @property
    def compactions(self) -> tuple[CompactionRecord, ...]:
        """The compactions of this call, in order."""
        return tuple(event for r in self.requests for event in r.compactions)
