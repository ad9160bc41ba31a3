"""A pure function of a text, remembered for the shorter texts.

The gate reads each text of a span to find what it must keep (identifiers, the phrases a rule
or a decision is said in). A span is compacted once, but the same tool results and questions
are read again: by each compaction's gate over the summary before it, and by the gate of each
condition of a benchmark over the same conversation (X-BENCH reads 3,227 distinct texts 22,878
times for identifiers, 1,389 texts 6,875 times for phrases). :class:`ShortTextMemo` remembers
the answers for texts of at most :data:`LONGEST_REMEMBERED` characters, the
:data:`TEXTS_REMEMBERED` used last, so the memory it holds stays under their product; longer
texts are read afresh every time. The function must be pure and its answer immutable.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

TEXTS_REMEMBERED = 4096
"""How many texts a memo remembers (the ones read last)."""
LONGEST_REMEMBERED = 8192
"""Longer texts are read afresh every time."""

Answer = TypeVar("Answer")


class ShortTextMemo(Generic[Answer]):
    """``read(text, *rest)``, remembered when ``text`` is at most :data:`LONGEST_REMEMBERED`
    characters long (``rest``: hashable arguments the answer also depends on)."""

    def __init__(self, read: Callable[..., Answer]) -> None:
        self.read = read
        """The function, read afresh."""
        self.remembered = functools.lru_cache(maxsize=TEXTS_REMEMBERED)(read)
        """The function behind the cache (``cache_info``, ``cache_clear``)."""

    def __call__(self, text: str, *rest: Hashable) -> Answer:
        if len(text) > LONGEST_REMEMBERED:
            return self.read(text, *rest)
        return self.remembered(text, *rest)


__all__ = ["LONGEST_REMEMBERED", "TEXTS_REMEMBERED", "ShortTextMemo"]
