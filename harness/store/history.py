"""Where an agent's working history lives: the :class:`History` protocol and the default
store (a JSON state checkpoint with its journal, plus a JSONL transcript).

The agent only appends messages and applies compactions; a store decides how that is kept. The
default keeps the working context in a state checkpoint (replaced atomically on a compaction)
plus a journal of the messages appended since (a turn writes only its own messages), and every
message that ever entered it in an append-only transcript; :mod:`harness.store.eventlog` keeps
both in one append-only event log whose folded surface is the context.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from harness.compaction.agentscope import Compaction
from harness.interrupted import interrupted_result, pending_calls
from harness.messages import Message
from harness.model import ChatRequest
from harness.store.statefile import AgentState, JsonStateStore, Transcript

__all__ = ["History", "StateHistory"]


@runtime_checkable
class History(Protocol):
    """The agent's working history (system prompt excluded)."""

    def messages(self) -> list[Message]:
        """The context as the model sees it after the system prompt."""
        ...

    def append(self, messages: Sequence[Message]) -> None:
        """Add messages at the end."""
        ...

    def apply_compaction(self, compaction: Compaction) -> None:
        """Replace the compacted prefix by the summary (and pruned tail results by theirs)."""
        ...

    def offload(self, prefix: Sequence[Message]) -> None:
        """Step 5 of a compaction: keep the prefix's originals durable before it is replaced."""
        ...

    def record_request(self, header: ChatRequest) -> None:
        """Keep the head of a request about to be sent (system prompt, reference material,
        tools), if this store has a use for it (the event log: manual DSH compaction)."""
        ...


class StateHistory:
    """The working context in a JSON state file, the originals in a JSONL transcript."""

    def __init__(
        self,
        session_id: str,
        state_store: JsonStateStore | None = None,
        transcript: Transcript | None = None,
    ) -> None:
        self.state_store = state_store
        self.transcript = transcript
        self.state = state_store.load(session_id) if state_store else AgentState(session_id)

    def messages(self) -> list[Message]:
        return list(self.state.context)

    def append(self, messages: Sequence[Message]) -> None:
        self.state.context.extend(messages)
        if self.transcript is not None:
            self.transcript.append_messages(messages)
        if self.state_store is not None:
            self.state_store.append(self.state, messages)

    def close_interrupted_calls(self) -> list[Message]:
        """On resume: close the tool calls a crash left without results with synthetic
        results marked ``interrupted`` (see :mod:`harness.interrupted`); returns them."""
        closing = [interrupted_result(call) for call in pending_calls(self.state.context)]
        if closing:
            self.append(closing)
        return closing

    def apply_compaction(self, compaction: Compaction) -> None:
        self.state.context = list(compaction.messages)
        if self.transcript is not None:
            self.transcript.append_messages(compaction.messages[:1])  # the new summary
        self._save()

    def record_request(self, header: ChatRequest) -> None:
        """Nothing to keep: the state store has no use for request headers."""

    def offload(self, prefix: Sequence[Message]) -> None:
        if self.transcript is not None:
            self.transcript.append_compaction(prefix, {"reason": "offload before compaction"})

    def _save(self) -> None:
        if self.state_store is not None:
            self.state_store.save(self.state)
