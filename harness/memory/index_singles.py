"""The terms of a batch held by one line only, stored together in the batch's row.

A memory ledger names many things once: ids, amounts, dates, a customer's number. In a batch
of :data:`~harness.memory.index_build.BATCH_LINES` lines most distinct terms are held by one
line, and a postings row each (a key, a line, an SQLite insert) made most of a build's cost.
They are kept instead in three columns of the batch's own row (:class:`Singles`): the terms,
sorted, each between newlines (a token never holds one); the line of each, as ``array("I")``
bytes; and how often the line holds it (empty when each holds it once). A query finds a term
there with one ``bytes.find`` per batch and counts the newlines before it for its position.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Singles", "split_single"]


@dataclass(frozen=True)
class Singles:
    """The single-line terms of one batch, as the batch's row stores them."""

    terms: bytes = b"\n"
    lines: bytes = b""
    counts: bytes = b""

    @classmethod
    def of(cls, entries: Iterable[tuple[str, int, int]]) -> Singles:
        """From ``(term, line, count)`` entries, sorted by term (each term once)."""
        terms, lines, counts = [], array("I"), array("I")
        for term, line, count in entries:
            terms.append(term)
            lines.append(line)
            counts.append(count)
        if not terms:
            return cls()
        text = ("\n" + "\n".join(terms) + "\n").encode("utf-8")
        more = any(count != 1 for count in counts)
        return cls(text, lines.tobytes(), counts.tobytes() if more else b"")

    def holds(self, term: str) -> bool:
        """Whether one line of the batch holds ``term`` (and no other does)."""
        return b"\n" + term.encode("utf-8") + b"\n" in self.terms

    def find(self, term: str) -> tuple[int, int] | None:
        """``(line, count)`` of ``term``, or None when no single line holds it; ValueError
        when the row's arrays do not match its terms (a damaged row)."""
        at = self.terms.find(b"\n" + term.encode("utf-8") + b"\n")
        if at < 0:
            return None
        position = self.terms.count(b"\n", 0, at)  # the terms before it
        lines, counts = array("I"), array("I")
        lines.frombytes(self.lines)
        if position >= len(lines):
            raise ValueError("a single-line term without its line")
        if not self.counts:
            return lines[position], 1
        counts.frombytes(self.counts)
        if len(counts) != len(lines):
            raise ValueError("single-line terms with counts of another length")
        return lines[position], counts[position]

    def entries(self) -> list[tuple[str, int, int]]:
        """Every ``(term, line, count)``, sorted by term (for a merge of two batches)."""
        terms = self.terms.decode("utf-8").split("\n")[1:-1]
        lines, counts = array("I"), array("I")
        lines.frombytes(self.lines)
        counts.frombytes(self.counts)
        if len(lines) != len(terms) or (self.counts and len(counts) != len(terms)):
            raise ValueError("single-line terms with arrays of another length")
        return [(t, line, counts[k] if self.counts else 1) for k, (t, line) in
                enumerate(zip(terms, lines, strict=True))]  # fmt: skip


def split_single(
    postings: Iterable[tuple[str, list[int], list[int] | None]],
) -> tuple[list[tuple[str, list[int], list[int] | None]], Singles]:
    """Postings ``(term, lines, counts or None)`` sorted by term, split into those of several
    lines (postings rows) and the single-line terms (the batch row's :class:`Singles`)."""
    rows, single = [], []
    for term, lines, counts in postings:
        if len(lines) == 1:
            single.append((term, lines[0], 1 if counts is None else counts[0]))
        else:
            rows.append((term, lines, counts))
    return rows, Singles.of(single)
