"""Merging a memory file's small trailing batches (an append adds a small batch; many of them
would make a query read many rows). The postings are joined term by term and split again into
rows and single-line terms (:mod:`harness.memory.index_singles`); nothing is tokenised again."""

from __future__ import annotations

import sqlite3

from harness.memory.index_build import BATCH_LINES
from harness.memory.index_singles import split_single
from harness.memory.index_store import DamagedError, batch_singles, insert_rows, stored_array

__all__ = ["SMALL_BATCH", "merge_tail"]

SMALL_BATCH = 4_096
"""Trailing batches (appends) are merged while the two last together hold at most this many
lines, or the earlier is no more than twice the later (so a file appended to line by line
keeps a few batches, each line's postings copied a few times)."""


def _joined(
    db: sqlite3.Connection, file: int, spans: list[tuple[int, int]]
) -> dict[str, tuple[list[int], list[int]]]:
    """The postings of a file's batches ``(first, count)``, joined term by term."""
    joined: dict[str, tuple[list[int], list[int]]] = {}
    for first, count in spans:
        try:
            singles = batch_singles(db, file, first).entries()
        except ValueError:
            raise DamagedError("a batch's single-line terms are damaged") from None
        for term, line, times in singles:
            into = joined.setdefault(term, ([], []))
            into[0].append(line)
            into[1].append(times)
        for term, n, line_bytes, count_bytes in db.execute(
            "SELECT term, n, lines, counts FROM postings WHERE file = ? AND first = ?",
            (file, first),
        ):
            lines = stored_array("I", line_bytes, n) if line_bytes else range(first, first + count)
            counts = stored_array("I", count_bytes, n) if count_bytes else [1] * n
            into = joined.setdefault(term, ([], []))
            into[0].extend(lines)
            into[1].extend(counts)
    return joined  # a term is a batch's single or in its rows: its lines come in order


def merge_tail(db: sqlite3.Connection, file: int) -> int:
    """Merge a file's last batches while they are small (see :data:`SMALL_BATCH`); how many
    merges were made. The postings are joined, nothing is tokenised again."""
    merged = 0
    while True:
        last_two = db.execute(
            "SELECT first, count, starts, ones FROM batches WHERE file = ? "
            "ORDER BY first DESC LIMIT 2",
            (file,),
        ).fetchall()
        if len(last_two) < 2:
            return merged
        later, earlier = last_two
        both = earlier[1] + later[1]
        if both > BATCH_LINES or (both > SMALL_BATCH and earlier[1] > 2 * later[1]):
            return merged
        joined = _joined(db, file, [(earlier[0], earlier[1]), (later[0], later[1])])
        db.execute(
            "DELETE FROM postings WHERE file = ? AND first IN (?, ?)", (file, earlier[0], later[0])
        )
        db.execute("DELETE FROM batches WHERE file = ? AND first = ?", (file, later[0]))
        rows, singles = split_single((t, ls, cs) for t, (ls, cs) in sorted(joined.items()))
        db.execute(
            "UPDATE batches SET count = ?, starts = ?, ones = ?, singles = ?, single_lines = ?, "
            "single_counts = ? WHERE file = ? AND first = ?",
            (both, earlier[2] + later[2], earlier[3] + later[3], singles.terms, singles.lines,
             singles.counts, file, earlier[0]),
        )  # fmt: skip
        insert_rows(db, file, earlier[0], both, rows)
        merged += 1
