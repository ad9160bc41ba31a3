"""The one history protocol both session stores implement completely.

:class:`History` is everything the agent loop, the compaction engines, the memory tools, manual
compaction and undo may ask of a session's history, so none of them looks at file names or
formats:

* **append** — :meth:`History.append` adds messages at the end of the context;
* **replace** — :meth:`History.apply_compaction` replaces the compacted prefix by its summary
  (and pruned tail results by theirs);
* **originals** — :meth:`History.record_prefix` makes the prefix's originals durable before it
  is replaced, and :meth:`History.originals` gives every message that ever entered the history,
  those a compaction replaced included, each with the file and line that keep it;
* **search** — :meth:`History.search` ranks those originals for a query (BM25 plus literal
  matches, :mod:`harness.text_search`); :func:`search_histories` ranks the originals of
  several sessions together, which is what ``session_search`` does.

A store may also offer ``message_view()``: the context as it keeps it, no copy, read at once.
Both stores do, and both keep its promise: **the same list object only ever grows at its end;
any other change (a compaction, an undo, a reload after another process wrote) gives a new
list.** The agent loop hands that list to the engines as the turn's source
(:attr:`harness.compaction.engine.Turn.source`), so their ledgers know in O(1) that the history
only grew (:class:`harness.meter.Ledger`); a store without ``message_view`` is read with
:meth:`History.messages` and checked item by item.

The two stores are :class:`~harness.store.history.StateHistory` (a state checkpoint + journal,
every original in a JSONL transcript) and :class:`~harness.store.eventlog.EventLogHistory` (one
append-only event log). :mod:`harness.store.sessions` is the one place that picks between them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from harness.messages import Message
from harness.model import ChatRequest

if TYPE_CHECKING:
    from harness.compaction.agentscope import Compaction
    from harness.text_search import SearchHit

__all__ = ["SEARCH_LIMIT", "History", "Original", "search_histories"]

SEARCH_LIMIT = 10
"""How many ranked hits a search returns (every literal match is returned on top)."""

SNIPPET_CHARS = 200
"""How much of a message a search hit shows."""


@dataclass(frozen=True)
class Original:
    """One message as it entered a session's history, and where the store keeps it."""

    file: str
    """The file holding it, relative to the workspace (``sessions/s1.jsonl``,
    ``events/s1.jsonl``), or its path when the store is not in a workspace."""
    line: int
    """Its 1-based line in that file."""
    message: Message


@runtime_checkable
class History(Protocol):
    """A session's working history (system prompt excluded) and every original behind it."""

    def messages(self) -> list[Message]:
        """The context as the model sees it after the system prompt."""
        ...

    def append(self, messages: Sequence[Message]) -> None:
        """Add messages at the end."""
        ...

    def apply_compaction(self, compaction: Compaction) -> None:
        """Replace the compacted prefix by the summary (and pruned tail results by theirs)."""
        ...

    def record_prefix(self, prefix: Sequence[Message]) -> None:
        """Step 5 of a compaction: keep the prefix's originals durable before it is replaced
        (afterwards :meth:`originals` holds every message of ``prefix``)."""
        ...

    def record_request(self, header: ChatRequest) -> None:
        """Keep the head of a request about to be sent (system prompt, reference material,
        tools), if this store has a use for it (the event log: manual DSH compaction)."""
        ...

    def originals(self) -> list[Original]:
        """Every message that ever entered this history, in order, replaced ones included."""
        ...

    def search(self, query: str, limit: int = SEARCH_LIMIT) -> list[SearchHit]:
        """This history's originals that match ``query``, best first."""
        ...

    def close_interrupted_calls(self) -> list[Message]:
        """On resume: close the tool calls a crash left without results with synthetic
        results marked ``interrupted`` (:mod:`harness.replies`); returns them."""
        ...


def search_histories(
    histories: Iterable[History], query: str, limit: int = SEARCH_LIMIT
) -> list[SearchHit]:
    """The originals of all ``histories`` that match ``query``, ranked together (one corpus,
    so a term's weight is the same whichever session holds it). Each hit cites its file and
    line and shows ``[ROLE] text`` (the first SNIPPET_CHARS characters); messages without
    text (tool calls only) are not searched."""
    from harness.text_search import SearchLine, rank_lines  # memory imports the stores

    lines = [
        SearchLine(item.file, item.line, _snippet(item.message))
        for history in histories
        for item in history.originals()
        if item.message.content
    ]
    return rank_lines(lines, query, limit=limit)


def _snippet(message: Message) -> str:
    return f"[{message.role.upper()}] {message.content[:SNIPPET_CHARS]}"
