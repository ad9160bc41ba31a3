"""memory_search's literal line matches: the lines holding the whole query, case-insensitively.

The lines a query scanned (:mod:`harness.memory.index_scan`) come with it. For the indexed part
of each file the lines are read from the lines holding the rarest term every literal line must
hold (:func:`~harness.memory.index_query.needle_terms`: query terms all, so their counts are
known) when it is in at most an eighth of the lines, by their offsets; otherwise the indexed
part is read once, a block at a time (:func:`~harness.memory.index_query.literal_lines`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import BinaryIO

from harness.errors import PathEscapeError
from harness.memory.index_query import literal_lines, needle_terms
from harness.memory.index_scan import Scanned
from harness.memory.index_store import FileRow, batch_postings, batch_starts

__all__ = ["literal_hits"]

Opener = Callable[[Path], AbstractContextManager[BinaryIO]]
Found = list[tuple[int, str]]
"""``(0-based line, text)`` of each line holding the query literally."""
_MISSING = (FileNotFoundError, IsADirectoryError, NotADirectoryError, PathEscapeError)


def literal_hits(
    db: sqlite3.Connection, open_file: Opener,
    files: Sequence[tuple[Path, FileRow, Scanned | None]], needle: str,
    terms: tuple[list[str], list[int]], held: list[dict[tuple[int, int], set[str]]],
) -> tuple[list[Found], int]:  # fmt: skip
    """Per file (its path, its index row, its scanned rest), its lines holding ``needle``;
    and how many bytes of the files were read for them. ``terms`` are the query's terms and
    the lines holding each; ``held``, per file, its batches holding a query term."""
    if not needle:
        return [[] for _ in files], 0
    order, frequencies = terms
    keys = [order.index(t) for t in needle_terms(needle) if t in order]
    lines = sum(row.lines + (rest.lines if rest else 0) for _, row, rest in files)
    rarest = min(keys, key=frequencies.__getitem__, default=None)
    found, read = [], 0
    for position, (path, row, rest) in enumerate(files):
        try:
            with open_file(path) as handle:
                if rarest is None or frequencies[rarest] * 8 > lines:
                    own = literal_lines(handle, row.covered, needle) if row.covered else []
                    read += row.covered
                else:
                    term = order[rarest]
                    spans = [b for b, ts in held[position].items() if term in ts]
                    own, size = _read_lines(db, handle, row, needle, term, spans)
                    read += size
        except _MISSING:
            own = []
        found.append(own + (rest.literal if rest else []))
    return found, read


def _read_lines(
    db: sqlite3.Connection, handle: BinaryIO, row: FileRow, needle: str, term: str,
    spans: list[tuple[int, int]],
) -> tuple[Found, int]:  # fmt: skip
    """The indexed lines holding ``term`` (in the batches ``spans``) whose lower-cased text
    holds ``needle``, each read by its offset; and the bytes read."""
    found, read = [], 0
    wanted: list[tuple[int, int]] = []  # (line, where it starts)
    for first, count in sorted(spans):
        starts = batch_starts(db, row.id, first, count)
        for line in batch_postings(db, row.id, first, count, [term])[term][0]:
            wanted.append((line, starts[line - first]))
    for line, start in wanted:
        handle.seek(start)
        raw = handle.readline(max(row.covered - start, 0))
        read += len(raw)
        text = raw.removesuffix(b"\n").decode("utf-8", errors="replace")
        if needle in text.lower():
            found.append((line, text))
    return found, read
