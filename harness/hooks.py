"""Hook points of the agent loop: at call start, before every model request, after a call."""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.messages import Message
from harness.results import CallResult

__all__ = ["AgentHook", "CallContext"]


@dataclass
class CallContext:
    """What hooks see and may change during one call."""

    user_text: str
    reference_messages: list[Message] = field(default_factory=list)
    """Messages placed right after the system prompt in every request of this call, but never
    stored in the history (memory injection puts MEMORY.md here)."""
    system_suffix: list[str] = field(default_factory=list)
    """Text appended to the system prompt for this call only."""
    requests: int = 0
    """Model requests made so far in this call."""
    overflow_retries: int = 0
    """Forced compactions after a context-length error since the count last started."""


class AgentHook:
    """Base class for hooks; override the points you need. All default to doing nothing."""

    def on_call_start(self, call: CallContext) -> None:
        """Once per call, before the user's message enters the history."""

    def before_request(self, call: CallContext) -> None:
        """Before every model request (several per call when the model uses tools)."""

    def after_call(self, call: CallContext, result: CallResult) -> None:
        """Once per call, after it finished successfully."""
