"""The recall's originals, derived once each and kept across requests, and their search index.

:func:`~harness.compaction.guards.recall.shadowed` decides from scratch which originals are
shadowed: for every original it prices whether the text fits the recall's budget whole and, when
not, cuts it into sentences and lines. Called before every request, that work grew with everything
compacted before (the same originals priced and cut again each time). :class:`ShadowIndex` keeps
each original's pieces from the first request that needs them, so a request derives only the
originals that are new to it; what is left per request is one substring test per original against
the context (C-level, the context bounded by the budget). Its answer is ``shadowed()``'s, element
for element (a property test checks it). The shadowed texts change at a compaction, not between
two: :meth:`ShadowIndex.index_of` keeps their :class:`~harness.text_search.LineIndex` until they do.

:class:`ReferencePrices` prices a reference message once per distinct text: the recall tries the
same best matches against its budget before every request.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from harness.compaction.guards.recall import candidate_lines, pieces_of, said
from harness.compaction.guards.recall_ends import TextEnds
from harness.messages import Message
from harness.text_search import LineIndex

if TYPE_CHECKING:
    from harness.store.protocol import Original

__all__ = ["ReferencePrices", "ShadowIndex"]

_MESSAGE = operator.attrgetter("message")
APPEND_ONLY = True
"""The lists of originals are append-only: a store's list only grows, and one read again (a
reopen, a transcript parsed again) is all new objects. So a list whose last known element is
the same object has only grown, and a request checks that one element, not every original
(checking them all cost a pass over every original per request, 0.1 ms at turn 1,000)."""
PRICE_MEMO = 4_096
"""Distinct reference messages whose price :class:`ReferencePrices` keeps (then it starts over)."""


class ReferencePrices:
    """``price`` of a reference message, kept per (role, name, text): a reference message is
    built again for each trial, so the price cached on a message object never served it."""

    def __init__(self, price: Callable[[Message], int]) -> None:
        self._price = price
        self._known: dict[tuple[str, str | None, str], int] = {}

    def __call__(self, message: Message) -> int:
        key = (message.role, message.name, message.content)
        known = self._known.get(key)
        if known is None:
            if len(self._known) >= PRICE_MEMO:
                self._known.clear()
            known = self._known[key] = self._price(message)
        return known


class _Entry:
    """One original: whether it was said, and (once needed) the texts it is searched as."""

    __slots__ = ("message", "pieces", "said")

    def __init__(self, message: Message) -> None:
        self.message = message
        self.said = said(message)
        self.pieces: tuple[tuple[str, Message], ...] | None = None


class _Source:
    """The entries of one growing list of originals, in its order."""

    def __init__(self) -> None:
        self.entries: list[_Entry] = []
        self.messages: list[Message] = []

    def sync(self, originals: Sequence[Message]) -> int:
        """Keep the entries of the longest common start (the same objects, or equal ones: a
        transcript read again), then add the rest; how many entries were kept. A list whose
        last known message is the same object has only grown (:data:`APPEND_ONLY`)."""
        kept = len(self.messages)
        if kept > len(originals) or (kept and originals[kept - 1] is not self.messages[-1]):
            kept = 0
            for old, new in zip(self.messages, originals, strict=False):
                if old is not new and old != new:
                    break
                kept += 1
            del self.entries[kept:], self.messages[kept:]
        fresh = list(originals[kept:])
        self.messages += fresh
        self.entries += map(_Entry, fresh)
        return kept


class ShadowIndex:
    """:func:`~harness.compaction.guards.recall.shadowed` over lists of originals that grow
    between calls (the store's, the engine's own spans), kept between requests: each original's
    pieces are derived once (``fits`` asked once per original), and the answer is worked out
    again only for what changed. The same context and originals give the last answer (no
    original tested); a context that only gained messages keeps every text it showed out (a
    text that was in the context still is), looks for each shadowed text only where the new
    messages could hold it, and tests only the originals new since; any other change (a
    compaction, a store that rewrote its originals) works it out from scratch."""

    def __init__(self, fits: Callable[[str], bool]) -> None:
        self._fits = fits
        self._originals: Sequence[Original] = ()
        self._messages: list[Message] = []
        """The messages of :attr:`_originals`, taken out once each."""
        self._sources: list[_Source] = []
        self._done: list[int] = []
        """How many entries of each source the answer covers."""
        self._context: tuple[str, ...] | None = None
        self._seen = ""
        self._blocks: list[dict[str, Message]] = []
        """The shadowed texts each source gave first, in order (the answer, source by source)."""
        self._answer: list[Message] = []
        self.derived = 0
        """How many originals were cut into their searched texts so far (each once)."""
        self.tested = 0
        """How many originals were tested against the whole context so far."""
        self._ends = TextEnds()
        """The shadowed texts by how they end (those a gained message holds again)."""
        self._texts: tuple[str, ...] | None = None
        self._indexed: list[Message] | None = None
        self._index: LineIndex | None = None
        self.indexed = 0
        """How many times the search index was updated (once per change of the candidates)."""

    def work(self) -> tuple[int, int, int, int]:
        """The work counted so far: originals tested against the whole context, shadowed texts
        looked for in what the context gained, texts scored, texts checked literally."""
        scored, checked = (0, 0) if self._index is None else self._index.work()
        return self.tested, self._ends.looked, scored, checked

    def index_of(self, candidates: Sequence[Message]) -> LineIndex:
        """The search index of ``candidates``: the last one again while they are the same
        texts (between two compactions, as a rule; the same answer of :meth:`shadowed` is
        known without reading it)."""
        if self._index is None:
            self._index = LineIndex()
        if candidates is self._indexed:
            return self._index
        texts = tuple(m.content for m in candidates)
        if texts != self._texts:
            self._texts = texts
            self._index.update(candidate_lines(candidates))  # posts only the texts new to it
            self.indexed += 1
        self._indexed = candidates if candidates is self._answer else None
        return self._index

    def shadowed_originals(
        self, originals: Sequence[Original], spans: Sequence[Message], context: Sequence[Message]
    ) -> list[Message]:
        """:meth:`shadowed` of a store's originals (``History.originals()``) then ``spans``;
        the originals' messages are taken out once each (a store hands over the same
        :class:`~harness.store.protocol.Original` objects, or new ones of the same messages)."""
        held = len(self._messages)
        last = held - 1
        same = held <= len(originals) and (
            not held
            or originals[last] is self._originals[last]  # the event log's: the same objects
            or originals[last].message is self._messages[last]  # new ones, the same messages
        )
        if not same:  # a store that rewrote its list: taken again
            self._messages, held = [], 0
        self._originals = originals  # History.originals() hands out a new list each time
        self._messages += map(_MESSAGE, originals[held:])
        return self.shadowed([self._messages, spans], context)

    def shadowed(
        self, sources: Sequence[Sequence[Message]], context: Sequence[Message]
    ) -> list[Message]:
        """``shadowed()`` of the originals of ``sources`` one after the other, against
        ``context``: those whose text is nowhere in it, each text once, in order (the same list
        object while it is the same answer; never changed in place)."""
        while len(self._sources) < len(sources):
            self._sources.append(_Source())
        contents = tuple(m.content for m in context)
        kept = [
            source.sync(originals)
            for source, originals in zip(self._sources, sources, strict=False)
        ]
        grown = [len(source.entries) for source in self._sources[: len(sources)]]
        old = self._context
        if old is None or len(kept) != len(self._done) or any(map(operator.lt, kept, self._done)):
            return self._full(contents, grown)  # the first call, or a store rewrote its list
        if contents == old and grown == self._done:
            return self._answer
        if contents[: len(old)] != old:
            return self._full(contents, grown)  # a compaction (or a pruned message)
        return self._extend(contents, grown)

    def _full(self, contents: tuple[str, ...], grown: list[int]) -> list[Message]:
        """The answer from scratch: every original tested against the whole context."""
        seen = "\n".join(contents)
        blocks: list[dict[str, Message]] = []
        for source in self._sources[: len(grown)]:
            block: dict[str, Message] = {}
            blocks.append(block)
            for entry in source.entries:
                for piece, message in self._shown(entry, seen):
                    if not any(piece in earlier for earlier in blocks):
                        block[piece] = message
        looked = self._ends.looked
        self._ends = TextEnds([text for block in blocks for text in block])
        self._ends.looked = looked
        return self._keep(contents, seen, grown, blocks, changed=True)

    def _extend(self, contents: tuple[str, ...], grown: list[int]) -> list[Message]:
        """The answer for a context that only gained messages: each text shown out is looked
        for where the gain could hold it (ending past the old context), and only the
        originals new since are tested."""
        seen, old = "\n".join(contents), len(self._seen)
        ends = self._ends
        if ends.cost(len(seen) - old) < ends.size:  # look where the gain is
            back = ends.ending_past(seen, old)
        else:  # few texts: look for each
            back = {
                t for b in self._blocks for t in b if seen.find(t, max(0, old - len(t) + 1)) >= 0
            }
            ends.looked += ends.size
        for text in back:
            ends.remove(text)
            del next(block for block in self._blocks if text in block)[text]
        changed = bool(back)
        for k, (source, start) in enumerate(zip(self._sources, self._done, strict=False)):
            for entry in source.entries[start:]:
                for piece, message in self._shown(entry, seen):
                    owner = next((j for j, b in enumerate(self._blocks) if piece in b), None)
                    if owner is not None and owner > k:  # an earlier source gives it now
                        return self._full(contents, grown)
                    if owner is None:
                        self._blocks[k][piece] = message
                        ends.add(piece)
                        changed = True
        return self._keep(contents, seen, grown, self._blocks, changed)

    def _keep(
        self,
        contents: tuple[str, ...],
        seen: str,
        grown: list[int],
        blocks: list[dict[str, Message]],
        changed: bool,
    ) -> list[Message]:
        self._context, self._seen, self._done, self._blocks = contents, seen, grown, blocks
        if changed:  # a new list: the last one may be held (and indexed) by the caller
            self._answer = [message for block in blocks for message in block.values()]
        return self._answer

    def _shown(self, entry: _Entry, seen: str) -> list[tuple[str, Message]]:
        """The texts ``entry`` is searched as that are not in ``seen`` (none when it was not
        said or its text is in it)."""
        self.tested += 1
        if not entry.said or entry.message.content in seen:
            return []
        pieces = self._derive(entry) if entry.pieces is None else entry.pieces
        return [(piece, message) for piece, message in pieces if piece not in seen]

    def _derive(self, entry: _Entry) -> tuple[tuple[str, Message], ...]:
        self.derived += 1
        message = entry.message
        if self._fits(message.content):
            entry.pieces = ((message.content, replace(message)),)
        else:
            entry.pieces = tuple(
                (piece, replace(message, content=piece)) for piece in pieces_of(message.content)
            )
        return entry.pieces
