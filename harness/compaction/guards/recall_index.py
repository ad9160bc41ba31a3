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

from harness.compaction.guards.recall import candidate_lines, pieces_of, said
from harness.messages import Message
from harness.text_search import LineIndex

__all__ = ["ReferencePrices", "ShadowIndex"]

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

    def sync(self, originals: Sequence[Message]) -> None:
        """Keep the entries of the longest common start (the same objects, or equal ones: a
        transcript read again), then add the rest."""
        kept = len(self.messages)
        if kept > len(originals) or not all(map(operator.is_, self.messages, originals)):
            kept = 0
            for old, new in zip(self.messages, originals, strict=False):
                if old is not new and old != new:
                    break
                kept += 1
            del self.entries[kept:], self.messages[kept:]
        fresh = list(originals[kept:])
        self.messages += fresh
        self.entries += map(_Entry, fresh)


class ShadowIndex:
    """:func:`~harness.compaction.guards.recall.shadowed` over lists of originals that grow
    between calls (the store's, the engine's own spans): each original's pieces are derived once
    (``fits`` asked once per original)."""

    def __init__(self, fits: Callable[[str], bool]) -> None:
        self._fits = fits
        self._sources: list[_Source] = []
        self.derived = 0
        """How many originals were cut into their searched texts so far (each once)."""
        self._texts: tuple[str, ...] | None = None
        self._index: LineIndex | None = None
        self.indexed = 0
        """How many times the search index was updated (once per change of the candidates)."""

    def index_of(self, candidates: Sequence[Message]) -> LineIndex:
        """The search index of ``candidates``: the last one again while they are the same
        texts (between two compactions, as a rule)."""
        texts = tuple(m.content for m in candidates)
        if self._index is None:
            self._index = LineIndex()
        if texts != self._texts:
            self._texts = texts
            self._index.update(candidate_lines(candidates))  # posts only the texts new to it
            self.indexed += 1
        return self._index

    def shadowed(
        self, sources: Sequence[Sequence[Message]], context: Sequence[Message]
    ) -> list[Message]:
        """``shadowed()`` of the originals of ``sources`` one after the other, against
        ``context``: those whose text is nowhere in it, each text once, in order."""
        while len(self._sources) < len(sources):
            self._sources.append(_Source())
        seen = "\n".join(m.content for m in context)
        texts: dict[str, Message] = {}
        for source, originals in zip(self._sources, sources, strict=False):
            source.sync(originals)
            for entry in source.entries:
                if not entry.said or entry.message.content in seen:
                    continue
                pieces = self._derive(entry) if entry.pieces is None else entry.pieces
                for piece, message in pieces:
                    if piece not in seen:
                        texts.setdefault(piece, message)
        return list(texts.values())

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
