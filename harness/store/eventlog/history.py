"""The agent's history kept in an :class:`EventLog`: AgentScope's compaction as log appends.

AgentScope 2.0.3 compacts by ``context.clear(); context.addAll([summary] + tail)``. On an
append-only log the same result is reached without deleting anything:

1. ``compaction/start`` (the lock);
2. for each tail message the compactor changed (a pruned tool result, truncated call
   arguments), a replace of that single node;
3. ``compaction/summary`` (log only: the summary, the shadowed range and seqs, the numbers);
4. the summary ``user/message``, a replace of the head node through the node before the
   cutoff (named by their seqs), citing the start, the
   summary event and every shadowed node;
5. ``compaction/end``.

Afterwards :meth:`EventLogHistory.messages` equals ``compaction.messages``, and every original
message is still in the log.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from harness.compaction.agentscope import Compaction
from harness.compaction.record import EngineName
from harness.disk_errors import on_disk
from harness.errors import SurfaceError
from harness.messages import Message
from harness.meter.pricers import estimate_tokens
from harness.model import ChatRequest
from harness.store.eventlog.bracket import Bracket, compaction_bracket, refuse_if_busy
from harness.store.eventlog.events import Event, thaw
from harness.store.eventlog.log import EventLog
from harness.store.eventlog.turns import TurnMarks
from harness.store.protocol import SEARCH_LIMIT, Original, search_histories

if TYPE_CHECKING:
    from harness.text_search import SearchHit

__all__ = ["ENGINE", "EventLogHistory"]

ENGINE: EngineName = "agentscope"
"""The ``engine`` named in the compaction events this history writes."""

Node = tuple[int, Message]


class EventLogHistory:
    """A :class:`harness.store.history.History` whose context is the surface of ``log``."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        self._turns = _turn_marks(log)  # dsh's turn/* and step/* events, in its format only
        self._originals: list[Original] = []  # of the events read so far (:meth:`originals`)
        self._originals_of: tuple[EventLog, int] = (log, 0)

    def catch_up(self) -> bool:
        """Fold in what another writer appended since this log last read the file (call it
        holding the session lock, :mod:`harness.store.session_lock`); True when something had
        changed. One ``fstat`` under the file lock when nothing did."""
        return self.log.sync() > 0

    def messages(self) -> list[Message]:
        """The surface as messages."""
        return self.log.messages()

    def message_count(self) -> int:
        """How many nodes the surface holds (no copy)."""
        return len(self.log.node_seqs)

    def message_view(self) -> Sequence[Message]:
        """The surface's messages as kept, no copy (read it at once, never keep or change it);
        the same list only grows at its end, anything else is a new list
        (:mod:`harness.store.protocol`)."""
        return self.log.message_view()

    def append(self, messages: Sequence[Message]) -> None:
        """Append each message as a surface node (an OSError is a StorageError naming the log)."""
        batch = list(messages)
        with on_disk(self._where, "append to the event log"):
            if self._turns is not None:
                self._turns.before_messages(batch)
            for message in batch:
                self.log.append_message(message)
            if self._turns is not None:
                self._turns.after_messages(batch)

    @property
    def _where(self) -> Path | str:
        return self.log.path or "the in-memory event log"

    def record_prefix(self, prefix: Sequence[Message]) -> None:
        """Nothing to write, by design: every message of ``prefix`` is already an event of
        this log (appended, fsynced, never rewritten), and the compaction's replace only
        shadows it, citing each shadowed seq. Writing the prefix again would duplicate it
        (and DeepSeek-Harness's logs hold no such event); :meth:`originals` holds it."""

    def originals(self) -> list[Original]:
        """Every message event of the log, in order (line = seq + 1): the shadowed originals,
        summaries, pruned replacements and restored copies alike. Events are never changed, so
        only those appended since the last call are read (the recall asks before every
        request): the messages are shared between calls, read-only."""
        log, read = self._originals_of
        events = self.log.events
        if log is not self.log or read > len(events):
            self._originals, read = [], 0
        file = self.log.origin
        name = "(memory)" if file is None else file.relative
        for seq in range(read, len(events)):
            message = events[seq].message
            if message is not None:
                self._originals.append(Original(name, seq + 1, message))
        self._originals_of = (self.log, len(events))
        return list(self._originals)

    def search(self, query: str, limit: int = SEARCH_LIMIT) -> list[SearchHit]:
        return search_histories([self], query, limit)

    def commit(self) -> None:
        """The turn's group commit (one fsync, ``per-turn`` only; :meth:`EventLog.commit`)."""
        self.log.commit()

    def record_request(self, header: ChatRequest) -> None:
        """Log a ``request/header`` (system prompt, reference material, tools) when it differs
        from the last one logged; a later manual DSH compaction replays it as its prefix."""
        if self._turns is not None:
            self._turns.before_request()
        data = json.loads(json.dumps(_header_data(header)))  # as the log holds it: lists
        latest = self._latest_header_event()
        logged = None if latest is None else thaw(latest.data)
        if logged is not None:
            logged.pop("dsh", None)  # read from a dsh file: its own shape rides beside
        if logged != data:  # frozen tuples never equal lists
            with on_disk(self._where, "append to the event log"):
                self.log.append("request/header", data)

    def latest_header(self) -> ChatRequest:
        """The last logged request header, or an empty one. Its tools are plain dicts (the
        event holds them frozen, which JSON cannot serialise)."""
        event = self._latest_header_event()
        if event is None:
            return ChatRequest(messages=())
        data = thaw(event.data)
        messages = tuple(Message.from_record(m) for m in data["messages"])
        return ChatRequest(messages=messages, tools=tuple(data["tools"]))

    def close_interrupted_calls(self) -> list[Message]:
        """On resume: close the tool calls a crash left without results (each gets a synthetic
        result saying it was interrupted, logged with ``interrupted``); returns them."""
        with on_disk(self._where, "append to the event log"):
            closed = self.log.close_interrupted_calls()
        return [event.message for event in closed if event.message]

    def _latest_header_event(self) -> Event | None:
        return self.log.latest("request/header")

    def apply_compaction(self, compaction: Compaction) -> None:
        """Commit ``compaction`` as appended events (see the module docstring) inside one
        :func:`~harness.store.eventlog.bracket.compaction_bracket`.

        Raises CompactionBusyError while another compaction holds the lock and SurfaceError
        when ``compaction`` was computed for a different surface; both before writing anything.
        A failure after the start closes the bracket with its error, unless the log can no
        longer be written: then the unclosed start stays, and is reported, as the lock.
        """
        self.log.sync()  # another process may have appended: compact the file's surface
        refuse_if_busy(self.log)
        self.log.require_balanced()
        nodes = self.log.node_messages()
        changed = _changed_tail(nodes, compaction)
        with compaction_bracket(self.log, engine=ENGINE, trigger=compaction.event.trigger) as b:
            self._commit(b, compaction, nodes, changed)

    def _commit(
        self, bracket: Bracket, compaction: Compaction, nodes: list[Node], changed: list[Node]
    ) -> None:
        start = bracket.start.seq
        for position, message in changed:
            seq = nodes[position][0]
            self.log.replace_seqs(seq, seq, message, extra_sources=(start,))
        cutoff = compaction.event.cut
        summary = self.log.append(
            "compaction/summary", _summary_data(bracket, compaction, nodes[:cutoff])
        )
        self.log.replace_seqs(
            nodes[0][0],
            nodes[cutoff - 1][0],
            compaction.messages[0],
            extra_sources=(start, summary.seq),
        )


def _turn_marks(log: EventLog) -> TurnMarks | None:
    if log.codec.format != "dsh":
        return None
    return TurnMarks(log)


def _header_data(header: ChatRequest) -> dict[str, object]:
    return {
        "messages": [m.to_record() for m in header.messages],
        "tools": [dict(t) for t in header.tools],
    }


def _summary_data(
    bracket: Bracket, compaction: Compaction, shadowed: list[Node]
) -> dict[str, object]:
    event = compaction.event
    data: dict[str, object] = {
        "engine": ENGINE,
        "compaction_id": bracket.compaction_id,
        "summary": event.summary,
        "shadowed_range": {"start": shadowed[0][0], "end": shadowed[-1][0]},  # seqs, as dsh
        "shadowed_seqs": [seq for seq, _ in shadowed],
        "shadowed_token_count": estimate_tokens(m for _, m in shadowed),
        "cutoff": event.cut,
        "total_tokens": event.total_tokens,
        "tokens_after": event.tokens_after,
        "summary_failed": event.summary_failed,
        "meter": event.meter,  # priced total_tokens and tokens_after
        "provider": event.provider,  # who served the summary call
    }
    if event.gate is not None:
        data["gate"] = event.gate  # what the identifier-survival gate appended to "summary"
    if event.pin is not None:
        data["pin"] = event.pin  # the user's turns the pin kept in "summary"
    return data


def _changed_tail(nodes: list[Node], compaction: Compaction) -> list[Node]:
    """The tail positions whose message the compactor changed, with the new message."""
    cutoff = compaction.event.cut
    tail = compaction.messages[1:]
    if cutoff < 1 or cutoff + len(tail) != len(nodes):
        raise SurfaceError(
            f"the compaction (cutoff {cutoff}, {len(tail)} kept) was computed for another "
            f"surface than the current one ({len(nodes)} nodes)"
        )
    changed = []
    for position, message in enumerate(tail, cutoff):
        current = nodes[position][1]
        if message.to_record() == current.to_record():
            continue
        if not _same_slot(message, current):
            raise SurfaceError(f"kept message at position {position} is not the surface's")
        changed.append((position, message))
    return changed


def _same_slot(new: Message, old: Message) -> bool:
    # Pruning and argument truncation change content, never who speaks or which calls pair.
    return (
        new.role == old.role
        and new.tool_call_id == old.tool_call_id
        and [c.id for c in new.tool_calls] == [c.id for c in old.tool_calls]
    )
