"""Where an agent's working history lives: the :class:`History` protocol (defined in
:mod:`harness.store.protocol`) and the default store (a JSON state checkpoint with its journal,
plus a JSONL transcript).

The agent only appends messages and applies compactions; a store decides how that is kept. The
default keeps the working context in a state checkpoint (replaced atomically on a compaction)
plus a journal of the messages appended since (a turn writes only its own messages), and every
message that ever entered it in an append-only transcript; :mod:`harness.store.eventlog` keeps
both in one append-only event log whose folded surface is the context.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.compaction.agentscope import Compaction
from harness.interrupted import interrupted_result, pending_calls
from harness.messages import Message
from harness.model import ChatRequest
from harness.store.protocol import SEARCH_LIMIT, History, Original, search_histories
from harness.store.statefile import AgentState, JsonStateStore, Transcript

if TYPE_CHECKING:
    from harness.text_search import SearchHit

__all__ = ["History", "StateHistory"]


class StateHistory:
    """The working context in a JSON state file, the originals in a JSONL transcript.

    Without a transcript nothing keeps the originals: :meth:`record_prefix` has nowhere to
    write and :meth:`originals` is empty (tests and benchmarks only; the builder always gives
    one)."""

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

    def message_count(self) -> int:
        """How many messages the context holds (no copy)."""
        return len(self.state.context)

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
        if self.state_store is not None:  # one journal line, committed with the turn
            self.state_store.replace(self.state)

    def record_request(self, header: ChatRequest) -> None:
        """Nothing to keep: the state store has no use for request headers."""

    def record_prefix(self, prefix: Sequence[Message]) -> None:
        """Log a ``compaction`` line naming the prefix in the transcript (its messages are
        already there, one line each, from :meth:`append`)."""
        if self.transcript is not None:
            self.transcript.append_compaction(prefix, {"reason": "offload before compaction"})

    def originals(self) -> list[Original]:
        """The transcript's message lines (a line a crash tore is left out)."""
        if self.transcript is None:
            return []
        file = self.transcript.file.relative
        return [Original(file, line, m) for line, m in self.transcript.numbered_messages()]

    def search(self, query: str, limit: int = SEARCH_LIMIT) -> list[SearchHit]:
        return search_histories([self], query, limit)

    def commit(self) -> None:
        """The turn's group commit: the transcript's and the journal's appends since the
        last commit reach the disk (one fsync each, ``per-turn`` only; see
        :mod:`harness.store.durability`)."""
        if self.transcript is not None:
            self.transcript.commit()
        if self.state_store is not None:
            self.state_store.commit(self.state.session_id)
