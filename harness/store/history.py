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
from harness.disk_errors import on_disk
from harness.messages import Message
from harness.model import ChatRequest
from harness.replies import interrupted_result, pending_calls
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
        self.session_id = session_id
        self.state = AgentState(session_id)
        # the fingerprint before the files are read, never after: a write another process
        # makes between the two must show as a change to the next catch_up (read unlocked, the
        # state may be a moment old; a catch_up under the session lock re-reads it)
        self._seen = self._fingerprint()
        if state_store is not None:
            with on_disk(state_store.path(session_id), "read the session's state"):
                self.state = state_store.load(session_id)

    def catch_up(self) -> bool:
        """Re-read what another writer saved since this history last read or wrote its files
        (call it holding the session lock, :mod:`harness.store.session_lock`); True when
        something had changed. Costs two ``stat`` calls when nothing did."""
        now = self._fingerprint()
        if now == self._seen:
            return False
        if self.state_store is not None and now[:2] != self._seen[:2]:
            self.state = self.state_store.load(self.state.session_id)
        if self.transcript is not None and now[2] != self._seen[2]:
            self.transcript.recount()
        self._seen = self._fingerprint()
        return True

    def _fingerprint(self) -> tuple[object, object, object]:
        """What identifies the files' contents: the checkpoint's inode and size (a save
        renames a new one in), the journal's size and change time, the transcript's size."""
        checkpoint: object = None
        journal: object = None
        if self.state_store is not None:
            sid = self.state.session_id
            found = self.state_store.file(sid).stat()
            checkpoint = None if found is None else (found.st_ino, found.st_size)
            found = self.state_store.journal(sid).stat()
            journal = None if found is None else (found.st_size, found.st_mtime_ns)
        transcript: object = None
        if self.transcript is not None:
            found = self.transcript.file.stat()
            transcript = None if found is None else found.st_size
        return checkpoint, journal, transcript

    def messages(self) -> list[Message]:
        return list(self.state.context)

    def message_count(self) -> int:
        """How many messages the context holds (no copy)."""
        return len(self.state.context)

    def message_view(self) -> Sequence[Message]:
        """The context as kept, no copy (read it at once, never keep or change it); the same
        list only grows at its end, anything else is a new list (:mod:`harness.store.protocol`)."""
        return self.state.context

    def append(self, messages: Sequence[Message]) -> None:
        self.state.context.extend(messages)
        # a full disk or a read-only mount is one sentence naming the file (StorageError)
        if self.transcript is not None:
            with on_disk(self.transcript.path, "append to the session transcript"):
                self.transcript.append_messages(messages)
        if self.state_store is not None:
            with on_disk(self.state_store.journal_path(self.session_id), "save the turn to"):
                self.state_store.append(self.state, messages)
        self._seen = self._fingerprint()

    def close_interrupted_calls(self) -> list[Message]:
        """On resume: close the tool calls a crash left without results with synthetic
        results marked ``interrupted`` (see :mod:`harness.replies`); returns them."""
        closing = [interrupted_result(call) for call in pending_calls(self.state.context)]
        if closing:
            self.append(closing)
        return closing

    def apply_compaction(self, compaction: Compaction) -> None:
        self.state.context = list(compaction.messages)
        if self.transcript is not None:
            self.transcript.append_messages(compaction.messages[:1])  # the new summary
        if self.state_store is not None:  # one journal line, committed with the turn
            with on_disk(self.state_store.journal_path(self.session_id), "save the compaction to"):
                self.state_store.replace(self.state)
        self._seen = self._fingerprint()

    def record_request(self, header: ChatRequest) -> None:
        """Nothing to keep: the state store has no use for request headers."""

    def record_prefix(self, prefix: Sequence[Message]) -> None:
        """Log a ``compaction`` line naming the prefix in the transcript (its messages are
        already there, one line each, from :meth:`append`)."""
        if self.transcript is not None:
            with on_disk(self.transcript.path, "append to the session transcript"):
                self.transcript.append_compaction(prefix, {"reason": "offload before compaction"})
            self._seen = self._fingerprint()

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
            with on_disk(self.state_store.journal_path(self.session_id), "save the turn to"):
                self.state_store.commit(self.state.session_id)
        self._seen = self._fingerprint()
