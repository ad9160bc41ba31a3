"""A running price of a sequence that grows at its end and is replaced by compaction.

A :class:`Ledger` keeps one price per item and their running sum, so the check before a request
costs O(what changed since the last check): :meth:`Ledger.sync` prices only the new items when
the sequence it is given begins with every item it holds, and anything else (a compaction
replaced the head, a node was pruned) is a :meth:`Ledger.reset` at O(n), which a compaction costs
anyway.

Knowing that the sequence only grew costs O(1) when the caller names its *source*: a live list
that its owner only ever extends at its end, every other change giving a new list (what the
stores' ``message_view`` promises, :mod:`harness.store.protocol`). The ledger keeps the source it
was last synced from, and the same list object again means the held items are still its head.
Without a source, or from another one, every held item is compared: by identity at C speed, and
with the item comparison where the objects differ. A check of the first, middle and last items
alone matched a history that shrank and grew back to the same length with equal messages at
those three places, and priced it wrong. :meth:`Ledger.append` and
:meth:`Ledger.replace` update it directly when the caller knows what changed.

Items are compared as messages (:func:`same_message`) or by equality (event seqs); the prices
themselves are cached on the messages (:func:`harness.meter.pricers.message_price`).
"""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["Ledger", "same_message"]

T = TypeVar("T")


def same_message(a: object, b: object) -> bool:
    """The same message: the same object, or equal fields and metadata (a store that parses its
    messages afresh for every request still matches)."""
    if a is b:
        return True
    return a == b and getattr(a, "metadata", None) == getattr(b, "metadata", None)


class Ledger(Generic[T]):
    """Prices of a sequence of items, with running sums."""

    def __init__(
        self, price: Callable[[T], int], same: Callable[[T, T], bool] = operator.is_
    ) -> None:
        self._price = price
        self._same = same
        self._items: list[T] = []
        self._cumulative: list[int] = [0]  # _cumulative[k]: the price of the first k items
        self._source: object = None
        """The live list the last :meth:`sync` read from (kept: its identity is the proof)."""
        self.resets = 0
        """How many times the ledger was rebuilt from scratch (for tests and benchmarks)."""

    def __len__(self) -> int:
        return len(self._items)

    @property
    def first(self) -> T | None:
        """The first item, if any."""
        return self._items[0] if self._items else None

    @property
    def total(self) -> int:
        """The price of every item."""
        return self._cumulative[-1]

    def prefix(self, count: int) -> int:
        """The price of the first ``count`` items."""
        return self._cumulative[count]

    def count_within(self, budget: int) -> int:
        """The largest ``k`` whose first ``k`` items cost at most ``budget`` (prices are >= 0)."""
        return bisect.bisect_right(self._cumulative, budget) - 1

    def tail_within(self, budget: int) -> int:
        """The smallest ``k`` whose items from position ``k`` on cost at most ``budget``: the
        start of the longest tail within it (prices are >= 0), found in O(log n)."""
        return bisect.bisect_left(self._cumulative, self._cumulative[-1] - budget)

    def append(self, items: Sequence[T]) -> None:
        """The sequence grew by ``items`` at its end."""
        self._source = None  # what the caller changed is no longer what the source holds
        running = self._cumulative[-1]
        for item in items:
            running += self._price(item)
            self._items.append(item)
            self._cumulative.append(running)

    def replace(self, start: int, end: int, items: Sequence[T]) -> None:
        """Positions ``start..end`` (inclusive) were replaced by ``items``; O(len - start)."""
        tail = self._items[end + 1 :]
        del self._items[start:]
        del self._cumulative[start + 1 :]
        self.append([*items, *tail])

    def reset(self, items: Sequence[T], source: object = None) -> None:
        """Forget everything and price ``items`` (read from the live list ``source``, if it
        only grows: :meth:`matches_head`)."""
        self.resets += 1
        self._items = []
        self._cumulative = [0]
        self.append(items)
        self._source = source

    def matches_head(self, items: Sequence[T], start: int = 0, source: object = None) -> bool:
        """True when ``items[start:]`` begins with every item this ledger holds, in order: the
        sequence only grew at its end. O(1) when ``source`` (the live list ``items[start:]`` was
        read from, which only grows, or None) is the one the ledger was last synced from;
        O(held items) otherwise."""
        known = len(self._items)
        if not known or len(items) - start < known:
            return False
        if source is not None and source is self._source:
            return True
        held = self._items
        if all(map(operator.is_, itertools.islice(items, start, start + known), held)):
            return True  # the same objects, compared without a call out of C
        same = self._same
        offered = itertools.islice(items, start, start + known)
        return all(a is b or same(a, b) for a, b in zip(offered, held, strict=True))

    def sync(self, items: Sequence[T], start: int = 0, source: object = None) -> int:
        """Bring the ledger to ``items[start:]`` and return the total; O(new items) when the
        sequence only grew and ``source`` names the live list it was read from (see
        :meth:`matches_head`), O(n) otherwise."""
        known = len(self._items)
        if self.matches_head(items, start, source):
            if len(items) - start > known:
                self.append(items[start + known :])
        else:
            self.reset(items[start:])
        self._source = source
        return self.total
