"""``memory_search``'s index: SQLite on disk, grown by appends, bounded in memory.

A :class:`MemoryIndex` answers a query with exactly :func:`harness.text_search.rank_lines`'
hits, scores and order (literal line matches first, then BM25, cut at the limit) over the
non-blank lines of some files, from an index it keeps current:

- **Unchanged file** (inode, size, mtime, ctime as indexed): nothing is read.
- **Appended file** (the same inode, no shorter than what was indexed, and the 4 KiB before the
  indexed end unchanged): only the lines after it are read and tokenised
  (:attr:`MemoryIndex.tokenised` counts them). Anything else (a file replaced, as MEMORY.md is
  on each write, cut short, or changed before its end) is indexed anew.
- **Building** reads a file a block at a time and stores a batch of lines in one transaction
  (:mod:`harness.memory.index_build`): memory holds a block and a batch whatever the size of
  the memory files, and a build cut short (a killed process) keeps what it committed and goes
  on from there. A query grows the index by at most :data:`BUILD_LINES` lines (whole batches;
  the first batch always, so every query makes progress) and answers for the lines not
  indexed yet by a scan (:mod:`harness.memory.index_scan`: the same statistics and codes,
  computed with C-level bytes operations): the first query over a large corpus answers in
  the time of a scan, later ones find more of it indexed until every file is. The line after
  a file's last newline is scanned, never stored.
- **A query** costs the postings of its terms, read batch by batch
  (:mod:`harness.memory.index_query`), plus one read of the memory files for the lines that
  hold the query literally (:mod:`harness.memory.index_literal`), plus the scan of the lines
  not indexed yet; its memory is a batch's scores, the scanned postings of its terms and the
  hits it returns.
- **Storage** (:mod:`harness.memory.index_store`): an SQLite database, in a workspace
  ``<user>/.memory_index/index.sqlite`` (:class:`harness.memory.tools.WorkspaceIndexStore`:
  WAL, one search at a time across processes under an OS file lock, never opened through a
  symlink), otherwise in this process's memory. A database that is damaged, not an index, or of
  another format is moved aside (``index.sqlite.damaged``) and built anew, with a warning and
  never an error to the user; if that fails too, the search runs on an index in memory.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import logging
import operator
import os
import sqlite3
import threading
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from harness.errors import PathEscapeError
from harness.memory import index_scan
from harness.memory.index_build import batches
from harness.memory.index_db import DatabaseFile, IndexStore, MemoryStore, connect
from harness.memory.index_literal import literal_hits
from harness.memory.index_merge import merge_tail
from harness.memory.index_query import Ranked, Tables, batch_scores
from harness.memory.index_scan import Scanned, scan_part
from harness.memory.index_store import (
    DamagedError,
    FileRow,
    Stamp,
    add_batch,
    batch_postings,
    clear_file,
    drop_file,
    file_row,
    line_start,
    new_file,
    save_file,
    term_batches,
)
from harness.text_search import SearchHit, tokenize

__all__ = [
    "BUILD_LINES",
    "DatabaseFile",
    "IndexStore",
    "MemoryIndex",
    "MemoryStore",
    "connect",
    "stamp_of",
]

logger = logging.getLogger("harness.memory")

Opener = Callable[[Path], AbstractContextManager[BinaryIO]]
"""A binary reader of a memory file (FileNotFoundError, IsADirectoryError or PathEscapeError:
the file is not there to search)."""
TAIL_BYTES = 4_096
"""The bytes before a file's indexed end whose digest tells an append from a rewrite."""
Held = list[tuple[int, "array[int]", "array[int]"]]
"""Postings of the query terms a batch holds: (term's position in the query, lines, codes)."""
BUILD_LINES = 65_536
"""The most lines a query adds to the index (it stops starting batches there; about 1 s of
tokenising on the benchmark's ledger): the rest of the files is answered by a scan."""
_MISSING = (FileNotFoundError, IsADirectoryError, NotADirectoryError, PathEscapeError)


def stamp_of(info: os.stat_result) -> Stamp:
    """What tells a changed file: inode, size, mtime and ctime."""
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _open(path: Path) -> AbstractContextManager[BinaryIO]:
    return path.open("rb")


@dataclass
class _Entry:
    path: Path
    name: str
    row: FileRow
    size: int
    """The file's size now (the index covers ``row.covered`` bytes of it)."""
    rest: Scanned | None = None
    """Its lines after ``row.covered``, scanned for this query."""


def _digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()[:16]


def _tail_digest(handle: BinaryIO, end: int) -> bytes:
    start = max(0, end - TAIL_BYTES)
    return _digest(os.pread(handle.fileno(), end - start, start))


class MemoryIndex:
    """BM25 plus literal line matches over a set of files, indexed by what changed."""

    def __init__(
        self, open_file: Opener = _open, store: IndexStore | None = None,
        build_lines: int = BUILD_LINES,
    ) -> None:  # fmt: skip
        """``open_file`` opens a memory file for reading (a workspace passes its
        symlink-refusing opener, :class:`harness.fs.root.SafeRoot`), ``store`` keeps the
        database (None: in this process's memory) and ``build_lines`` is the most lines a
        query adds to the index (:data:`BUILD_LINES`)."""
        self._open = open_file
        self._store: IndexStore = store if store is not None else MemoryStore()
        self._lock = threading.Lock()  # the memory tools may run on a background thread too
        self._seen: set[str] = set()
        self.build_lines = build_lines
        self._budget = 0
        """Lines this query may still add to the index."""
        self.reindexed = 0
        """How many times a changed or new file was read."""
        self.tokenised = 0
        """How many lines were tokenised into the index (what an index on disk saves)."""
        self.unindexed = 0
        """How many lines were scanned by queries because the index did not hold them yet."""
        self.loaded = 0
        """How many files this index found indexed and current on disk (by another process)."""
        self.recovered = 0
        """How many times a damaged database was moved aside and built anew."""
        self.scanned = 0
        """Bytes of the memory files read to find the lines holding a query literally."""

    def search(
        self, files: Sequence[tuple[Path, str]], query: str, limit: int = 20
    ) -> list[SearchHit]:
        """:func:`~harness.text_search.rank_lines` over the non-blank lines of ``files``
        (``(path, name shown in results)``, in order), from the index."""
        with self._lock:
            for attempt in range(3):
                try:
                    with self._store.session() as db:
                        return self._search(db, files, query, limit)
                except (sqlite3.DatabaseError, DamagedError) as exc:
                    if attempt == 2:
                        raise
                    self._recover(exc, in_memory=attempt == 1)
                except (OSError, PathEscapeError) as exc:  # the store cannot be used
                    if isinstance(self._store, MemoryStore) or attempt == 2:
                        raise
                    logger.warning("memory_search: the index is kept in memory: %s", exc)
                    self._forget(MemoryStore())
            raise AssertionError("unreachable")

    def _recover(self, exc: Exception, in_memory: bool) -> None:
        logger.warning("memory_search: the index is damaged (%s); building it anew", exc)
        self.recovered += 1
        try:
            self._store.move_aside()
        except OSError:
            in_memory = True
        self._forget(MemoryStore() if in_memory else self._store)

    def _forget(self, store: IndexStore) -> None:
        """Start over on ``store`` (the one in use when it is the same)."""
        self._store = store
        self._seen.clear()

    # --- keeping the index current ----------------------------------------------------------

    def _refresh(self, db: sqlite3.Connection, files: Sequence[tuple[Path, str]]) -> list[_Entry]:
        entries = []
        self._budget = max(self.build_lines, 1)
        for path, name in files:
            try:
                with self._open(path) as handle:
                    stamp = stamp_of(os.fstat(handle.fileno()))
                    row = file_row(db, name)
                    if row is not None and row.stamp == stamp:
                        if name not in self._seen:
                            self.loaded += 1
                    else:
                        row = self._index(db, row, name, handle, stamp)
            except _MISSING:
                if file_row(db, name) is not None:
                    with _transaction(db):
                        drop_file(db, name)
                continue
            self._seen.add(name)
            entries.append(_Entry(path, name, row, stamp[1]))
        return entries

    def _index(
        self, db: sqlite3.Connection, row: FileRow | None, name: str, handle: BinaryIO,
        stamp: Stamp,
    ) -> FileRow:  # fmt: skip
        """Index what ``handle`` holds beyond what ``row`` covers, a batch per transaction,
        while this query's budget lasts (the file's stamp is saved once it is whole)."""
        self.reindexed += 1
        with _transaction(db):
            if row is None:
                row = new_file(db, name)
            elif not self._appended(row, handle, stamp):
                clear_file(db, row)
        source = batches(handle, row.covered, row.lines, stamp[1])
        while self._budget > 0:
            batch = next(source, None)
            if batch is None:
                break
            self._budget -= batch.count
            with _transaction(db):
                add_batch(db, row, batch)
                row.covered = batch.end
                row.tail = _tail_digest(handle, batch.end)
                row.stamp = (stamp[0], 0, 0, 0)  # not whole yet: a later search goes on
                save_file(db, row)
            self.tokenised += batch.count
        else:
            return row  # the budget is spent: the rest of the file is scanned
        with _transaction(db):
            merge_tail(db, row.id)
            row.stamp = stamp
            save_file(db, row)
        return row

    @staticmethod
    def _appended(row: FileRow, handle: BinaryIO, stamp: Stamp) -> bool:
        if not row.covered:
            return True
        return (
            row.stamp[0] == stamp[0]
            and stamp[1] >= row.covered
            and _tail_digest(handle, row.covered) == row.tail
        )

    # --- queries ----------------------------------------------------------------------------

    def _search(
        self, db: sqlite3.Connection, files: Sequence[tuple[Path, str]], query: str, limit: int
    ) -> list[SearchHit]:
        entries = self._refresh(db, files)
        order = list(set(tokenize(query)))  # the order rank_lines adds the terms in
        needle = query.strip().lower()
        hold = index_scan.HOLD_BYTES  # the scans' postings, across the files
        for entry in entries:
            entry.rest = self._scan_rest(entry, order, needle, hold)
            hold -= entry.rest.kept
        held, frequencies = self._held(db, entries, order)
        count = sum(e.row.nonblank + e.rest.nonblank for e in entries if e.rest)
        total = sum(e.row.total + e.rest.total for e in entries if e.rest)
        literal, read = literal_hits(db, self._open, [(e.path, e.row, e.rest) for e in entries],
                                     needle, (order, frequencies), held)  # fmt: skip
        self.scanned += read
        literal_count = sum(map(len, literal))
        tables = Tables(frequencies, count, total / count if count else 1.0)
        ranked = Ranked(limit - literal_count)
        literal_scores: dict[tuple[int, int], float] = {}
        for position, entry in enumerate(entries):
            self._score(db, entry, position, order, held[position], literal[position], tables,
                        ranked, literal_scores)  # fmt: skip
        hits = [
            SearchHit(entry.name, index + 1, text, literal_scores.get((p, index), 0.0), True)
            for p, entry in enumerate(entries)
            for index, text in literal[p]
        ]
        for negative, _, index, position in ranked.kept:
            entry = entries[position]
            text = self._line_text(db, entry, index)
            hits.append(SearchHit(entry.name, index + 1, text, -negative, False))
        hits.sort(key=lambda h: (not h.literal, -h.score, h.file, h.line))
        return hits[: max(limit, literal_count)]

    def _scan_rest(self, entry: _Entry, order: list[str], needle: str, hold: int) -> Scanned:
        """The lines of ``entry`` the index does not hold (after ``row.covered``), scanned,
        keeping at most ``hold`` bytes of postings."""
        row = entry.row
        if entry.size <= row.covered:
            return Scanned([0] * len(order))
        try:
            with self._open(entry.path) as handle:
                rest = scan_part(handle, row.covered, row.lines, entry.size, order, needle, hold)
        except _MISSING:
            return Scanned([0] * len(order))
        self.unindexed += rest.lines
        return rest

    @staticmethod
    def _held(
        db: sqlite3.Connection, entries: list[_Entry], order: list[str]
    ) -> tuple[list[dict[tuple[int, int], set[str]]], list[int]]:
        """Per entry, its indexed batches holding a query term (and which); per term, the
        lines holding it (indexed and scanned)."""
        held: list[dict[tuple[int, int], set[str]]] = []
        frequencies = [0] * len(order)
        for entry in entries:
            per_batch: dict[tuple[int, int], set[str]] = {}
            if order and entry.row.lines:
                for term, first, n, lines in term_batches(db, entry.row.id, order):
                    per_batch.setdefault((first, lines), set()).add(term)
                    frequencies[order.index(term)] += n
            if entry.rest is not None:
                frequencies[:] = map(operator.add, frequencies, entry.rest.frequencies)
            held.append(per_batch)
        return held, frequencies

    def _score(
        self, db: sqlite3.Connection, entry: _Entry, position: int, order: list[str],
        held: dict[tuple[int, int], set[str]], literal: list[tuple[int, str]], tables: Tables,
        ranked: Ranked, literal_scores: dict[tuple[int, int], float],
    ) -> None:  # fmt: skip
        """Score ``entry``'s batches that hold a query term (then its scanned blocks that
        do): record its literal lines' scores, offer the others to ``ranked``."""
        lines = [index for index, _ in literal]
        for first, count, found in self._parts(db, entry, order, held):
            scores = batch_scores(first, count, found, tables)
            lo, hi = bisect.bisect_left(lines, first), bisect.bisect_left(lines, first + count)
            for line in lines[lo:hi]:
                literal_scores[(position, line)] = scores[line - first]
                scores[line - first] = 0.0  # literal lines are not ranked a second time
            ranked.offer(scores, first, entry.name, position)

    def _parts(
        self, db: sqlite3.Connection, entry: _Entry, order: list[str],
        held: dict[tuple[int, int], set[str]],
    ) -> Iterator[tuple[int, int, Held]]:  # fmt: skip
        """Per batch holding a query term (then per scanned block holding one): its first
        line, its line count and its postings of the query terms, one batch at a time."""
        for first, count in sorted(held):
            postings = batch_postings(db, entry.row.id, first, count, held[first, count])
            yield first, count, [(k, *postings[t]) for k, t in enumerate(order) if t in postings]
        rest = entry.rest
        if rest is None or not rest.dropped:
            for block in rest.blocks if rest else []:
                yield block.first, block.count, block.held
            return
        try:  # the postings outgrew the scan's budget: each block read again to score it
            with self._open(entry.path) as handle:
                for block in rest.scored(handle, order):
                    yield block.first, block.count, block.held
        except _MISSING:
            return

    def _line_text(self, db: sqlite3.Connection, entry: _Entry, index: int) -> str:
        row = entry.row
        try:
            with self._open(entry.path) as handle:
                if index >= row.lines and entry.rest is not None:
                    return entry.rest.text(handle, index)
                handle.seek(line_start(db, row.id, index))
                raw = handle.readline(max(row.covered - handle.tell(), 0))
        except _MISSING:
            return ""
        return raw.removesuffix(b"\n").decode("utf-8", errors="replace")


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
