"""A running price of a sequence that grows at its end and is replaced by compaction.

A :class:`Ledger` keeps one price per item and their running sum, so the check before a request
costs O(what changed since the last check): :meth:`Ledger.sync` compares the sequence it is
given with what it saw last (same length or longer, same first, middle and last item) and prices
only the new items; anything else (a compaction replaced the head, a node was pruned) is a
:meth:`Ledger.reset` at O(n), which a compaction costs anyway. :meth:`Ledger.append` and
:meth:`Ledger.replace` update it directly when the caller knows what changed.

Items are compared as messages (:func:`same_message`) or by equality (event seqs); the prices
themselves are cached on the messages (:func:`harness.meter.pricers.message_price`).
"""

from __future__ import annotations

import bisect
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

    def append(self, items: Sequence[T]) -> None:
        """The sequence grew by ``items`` at its end."""
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

    def reset(self, items: Sequence[T]) -> None:
        """Forget everything and price ``items``."""
        self.resets += 1
        self._items = []
        self._cumulative = [0]
        self.append(items)

    def matches_head(self, items: Sequence[T], start: int = 0) -> bool:
        """True when ``items[start:]`` begins with what this ledger holds (checked at its first,
        middle and last item): the sequence only grew at its end."""
        known = len(self._items)
        if not known or len(items) - start < known:
            return False
        same = self._same
        middle = known // 2
        return (
            same(items[start], self._items[0])
            and same(items[start + middle], self._items[middle])
            and same(items[start + known - 1], self._items[-1])
        )

    def sync(self, items: Sequence[T], start: int = 0) -> int:
        """Bring the ledger to ``items[start:]`` and return the total; O(new items) when the
        sequence only grew, O(n) otherwise."""
        known = len(self._items)
        if self.matches_head(items, start):
            if len(items) - start > known:
                self.append(items[start + known :])
        else:
            self.reset(items[start:])
        return self.total
