"""The recall's originals, derived once each and kept across requests, and their search index.

:func:`~harness.compaction.guards.recall.shadowed` decides from scratch which originals are
shadowed: for every original it prices whether the text fits the recall's budget whole and, when
not, cuts it into sentences and lines. Called before every request, that work grew with everything
compacted before (the same originals priced and cut again each time). :class:`ShadowIndex` keeps
each original's pieces from the first request that needs them, and the answer between requests:
a request tests only the originals new to it, a context that gained messages is looked through
only where it grew, and a compaction (a context that lost messages) tests again only what the old
context held (before issue 48's cut it tested every original against the new context: 7,000 at
turn 1,000 of the recall benchmark, about 9 ms of a 17 ms turn). Its answer is ``shadowed()``'s,
element for element (property tests check it). The shadowed texts change at a compaction, not
between two: :meth:`ShadowIndex.index_of` keeps their :class:`~harness.text_search.LineIndex`
until they do, and extends it with the texts a compaction added after the others.

:class:`ReferencePrices` prices a reference message once per distinct text: the recall tries the
same best matches against its budget before every request.
"""

from __future__ import annotations

import bisect
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

_Key = tuple[int, int, int]
"""Where a piece comes first: its source, its original there, its place among the pieces."""

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
    between calls (the store's, the engine's own spans), kept between requests and updated from
    what changed.

    The answer is every distinct searched text (a piece) of the said originals that is not in
    the context, each with the first original that gives it, in that original's order (a text
    in the context leaves out its whole original, but then each of its pieces is in the context
    too). So the index keeps each piece's first original (:attr:`_first`), the pieces shown
    (the answer, in order, and :class:`TextEnds` of them), the pieces in the context
    (:attr:`_hidden`) and, by text, the originals whose whole text is in the context (not cut
    into pieces yet, :attr:`_whole`). When the context changes, only its messages past the
    longest start it shares with the last one are new: a shown piece can be in it now only by
    ending past that start (looked up by how it ends, as the gain of a growing context is),
    and only the hidden pieces and whole texts are tested against the context again, and only
    when it lost something (a compaction); the originals new since are tested once each. The
    same context and originals give the last answer (no original tested); a store that
    rewrote its originals works it out from scratch."""

    def __init__(self, fits: Callable[[str], bool]) -> None:
        self._fits = fits
        self._originals: Sequence[Original] = ()
        self._messages: list[Message] = []
        """The messages of :attr:`_originals`, taken out once each."""
        self._sources: list[_Source] = []
        self._done: list[int] = []
        """How many entries of each source the answer covers."""
        self._context: tuple[str, ...] | None = None
        self._answer: list[Message] = []
        self.derived = 0
        """How many originals were cut into their searched texts so far (each once)."""
        self.tested = 0
        """How many originals (or texts) were tested against the whole context so far."""
        self._ends = TextEnds()
        """The shown pieces by how they end (those a changed context holds again)."""
        self._reset()
        self._texts: tuple[str, ...] | None = None
        """The texts the search index holds, in its lines' order."""
        self._indexed: list[Message] | None = None
        self._index: LineIndex | None = None
        self.indexed = 0
        """How many times the search index was updated (once per change of the candidates)."""

    def _reset(self) -> None:
        """Nothing known: the next answer is worked out from scratch."""
        self._first: dict[str, tuple[_Key, Message]] = {}
        """Each piece of the originals cut so far, with the first original that gives it."""
        self._keys: list[_Key] = []
        self._shown: list[Message] = []
        """The answer being kept: the shown pieces' messages, ordered by :attr:`_keys`."""
        self._hidden: set[str] = set()
        """The pieces (of :attr:`_first`) that are in the context."""
        self._whole: dict[str, list[tuple[int, int, _Entry]]] = {}
        """The said originals whose whole text is in the context, by text (not cut yet)."""
        looked = self._ends.looked
        self._ends = TextEnds()
        self._ends.looked = looked
        self._changed = self._moved = True

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
        if candidates is self._answer and self._texts is not None and not self._moved:
            # the answer indexed last, and pieces added after it (a compaction's span): only
            # the new lines are read
            new = candidates[len(self._texts) :]
            if new:
                self._index.extend(candidate_lines(new, len(self._texts)))
                self._texts += tuple(m.content for m in new)
                self.indexed += 1
        else:
            texts = tuple(m.content for m in candidates)
            if texts != self._texts:
                self._texts = texts
                self._index.update(candidate_lines(candidates))  # posts only the texts new to it
                self.indexed += 1
        self._indexed = candidates if candidates is self._answer else None
        self._moved = self._indexed is None
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
        seen = "\n".join(contents)
        if old is None or len(kept) != len(self._done) or any(map(operator.lt, kept, self._done)):
            self._reset()  # the first call, or a store rewrote its list
            self._done = [0] * len(grown)
        elif contents == old and grown == self._done:
            return self._answer
        else:
            self._update(seen, contents, old)
        for k, (source, start) in enumerate(zip(self._sources, self._done, strict=False)):
            for i in range(start, grown[k]):
                self._test(k, i, source.entries[i], seen)
        self._context, self._done = contents, grown
        if self._changed:  # a new list: the last one may be held (and indexed) by the caller
            self._answer, self._changed = list(self._shown), False
        return self._answer

    def _update(self, seen: str, contents: tuple[str, ...], old: tuple[str, ...]) -> None:
        """Bring the kept pieces up to ``contents``, which shares its first messages with
        ``old``: the shown pieces that end past those are in the context now; when it lost
        something, the hidden pieces and whole texts are tested again (each is in the context
        or, cut, shown: none of them is among the shown pieces found)."""
        same = 0
        for now, before in zip(contents, old, strict=False):
            if now != before:
                break
            same += 1
        start = len("\n".join(contents[:same]))  # what is before it was in the old context
        shown = self._ending_past(seen, start)
        if same < len(old):  # it lost messages: what they held may be shadowed now
            self.tested += len(self._hidden) + len(self._whole)
            for text in [t for t in self._hidden if t not in seen]:
                self._hidden.discard(text)
                self._show(text)
            for text in [t for t in self._whole if t not in seen]:
                for k, i, entry in self._whole.pop(text):
                    self._cut(k, i, entry, seen)
        for text in shown:
            self._hide(text)

    def _ending_past(self, seen: str, start: int) -> set[str]:
        """The shown pieces that occur in ``seen`` ending past its first ``start`` characters."""
        ends = self._ends
        if ends.cost(len(seen) - start) < ends.size:  # look where the change is
            return ends.ending_past(seen, start)
        ends.looked += ends.size  # few texts: look for each
        texts = [message.content for message in self._shown]
        return {text for text in texts if seen.find(text, max(0, start - len(text) + 1)) >= 0}

    def _test(self, k: int, i: int, entry: _Entry, seen: str) -> None:
        """Take in original ``i`` of source ``k``: kept whole while its text is in the
        context, else cut into its pieces."""
        self.tested += 1
        if not entry.said:
            return
        content = entry.message.content
        if content in seen:
            self._whole.setdefault(content, []).append((k, i, entry))
        else:
            self._cut(k, i, entry, seen)

    def _cut(self, k: int, i: int, entry: _Entry, seen: str) -> None:
        """Take in the pieces of an original whose text is not in the context: each piece
        new to the index, or that this original gives before the one that gave it so far."""
        pieces = self._derive(entry) if entry.pieces is None else entry.pieces
        for j, (piece, message) in enumerate(pieces):
            key = (k, i, j)
            known = self._first.get(piece)
            if known is not None and known[0] <= key:
                continue
            self._first[piece] = (key, message)
            if known is None and piece in seen:
                self._hidden.add(piece)
            elif known is None:
                self._show(piece)
            elif piece not in self._hidden:  # shown: it moves to this original's place
                self._drop(known[0])
                self._insert(key, message)

    def _show(self, piece: str) -> None:
        key, message = self._first[piece]
        self._insert(key, message)
        self._ends.add(piece)

    def _hide(self, piece: str) -> None:
        self._drop(self._first[piece][0])
        self._ends.remove(piece)
        self._hidden.add(piece)

    def _insert(self, key: _Key, message: Message) -> None:
        at = bisect.bisect_left(self._keys, key)
        self._moved = self._moved or at < len(self._keys)  # not after every indexed piece
        self._keys.insert(at, key)
        self._shown.insert(at, message)
        self._changed = True

    def _drop(self, key: _Key) -> None:
        at = bisect.bisect_left(self._keys, key)
        del self._keys[at], self._shown[at]
        self._changed = self._moved = True

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
