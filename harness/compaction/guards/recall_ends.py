"""The recall's shadowed texts by how they end, to find those a grown context holds again.

When the context only gains messages, a shadowed text is in it again only if it occurs ending
past the old context's end (:class:`~harness.compaction.guards.recall_index.ShadowIndex`).
Looking for every shadowed text there cost one search per shadowed text per request, which
grew with everything compacted before. :class:`TextEnds` keeps each text under its last
:data:`TAIL` characters (a shorter text under itself), so the texts that end at a position are
found by a lookup of the characters before it: the work follows what the context gained, not
how many texts are shadowed.
"""

from __future__ import annotations

__all__ = ["TAIL", "TextEnds"]

TAIL = 4
"""How many last characters a text is kept under."""


class TextEnds:
    """A set of texts, each findable by how it ends: under its last :data:`TAIL` characters
    and its length (a shorter text under itself), so the texts ending at a position are found by
    one lookup per length kept under the characters before it, however many share them."""

    def __init__(self, texts: list[str] | None = None) -> None:
        self._by_tail: dict[str, dict[int, set[str]]] = {}
        self.size = 0
        self.looked = 0
        """How many lookups :meth:`ending_past` made so far."""
        self._short: set[int] = set()
        """The lengths of the texts shorter than :data:`TAIL` (each its own tail)."""
        for text in texts or []:
            self.add(text)

    def add(self, text: str) -> None:
        """Keep ``text`` (not kept yet)."""
        self._by_tail.setdefault(text[-TAIL:], {}).setdefault(len(text), set()).add(text)
        if len(text) < TAIL:
            self._short.add(len(text))
        self.size += 1

    def remove(self, text: str) -> None:
        """Let ``text`` go (kept)."""
        tail = text[-TAIL:]
        lengths = self._by_tail[tail]
        texts = lengths[len(text)]
        texts.remove(text)
        if not texts:
            del lengths[len(text)]
            if not lengths:
                del self._by_tail[tail]
        self.size -= 1  # a short length stays in _short: one more lookup, no wrong answer

    def cost(self, gained: int) -> int:
        """About how many lookups :meth:`ending_past` makes for ``gained`` characters."""
        return gained * (1 + len(self._short))

    def ending_past(self, seen: str, start: int) -> set[str]:
        """The kept texts that occur in ``seen`` ending after its first ``start`` characters."""
        found: set[str] = set()
        for end in range(start + 1, len(seen) + 1):
            tails = [seen[max(0, end - TAIL) : end]]
            tails += [seen[end - short : end] for short in self._short if short < min(end, TAIL)]
            for tail in tails:
                for length, texts in self._by_tail.get(tail, {}).items():
                    self.looked += 1
                    if length <= end and seen[end - length : end] in texts:
                        found.add(seen[end - length : end])
        return found
