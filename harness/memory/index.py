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
  on from there. The line after a file's last newline is tokenised in memory, never stored.
- **A query** costs the postings of its terms, read batch by batch
  (:mod:`harness.memory.index_query`), plus one read of the memory files for the lines that
  hold the query literally; its memory is a batch's scores and the hits it returns.
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
from harness.memory.index_build import TF_SHIFT, TailLine, batches, tail_line
from harness.memory.index_db import DatabaseFile, IndexStore, MemoryStore, connect
from harness.memory.index_merge import merge_tail
from harness.memory.index_query import Ranked, Tables, batch_scores, literal_lines, needle_terms
from harness.memory.index_store import (
    DamagedError,
    FileRow,
    Stamp,
    add_batch,
    batch_postings,
    batch_starts,
    clear_file,
    drop_file,
    file_row,
    line_start,
    new_file,
    save_file,
    term_batches,
)
from harness.text_search import SearchHit, tokenize

__all__ = ["DatabaseFile", "IndexStore", "MemoryIndex", "MemoryStore", "connect", "stamp_of"]

logger = logging.getLogger("harness.memory")

Opener = Callable[[Path], AbstractContextManager[BinaryIO]]
"""A binary reader of a memory file (FileNotFoundError, IsADirectoryError or PathEscapeError:
the file is not there to search)."""
TAIL_BYTES = 4_096
"""The bytes before a file's indexed end whose digest tells an append from a rewrite."""
Held = list[tuple[int, "array[int]", "array[int]"]]
"""Postings of the query terms a batch holds: (term's position in the query, lines, codes)."""
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
    tail: TailLine | None


def _digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()[:16]


def _tail_digest(handle: BinaryIO, end: int) -> bytes:
    start = max(0, end - TAIL_BYTES)
    return _digest(os.pread(handle.fileno(), end - start, start))


class MemoryIndex:
    """BM25 plus literal line matches over a set of files, indexed by what changed."""

    def __init__(self, open_file: Opener = _open, store: IndexStore | None = None) -> None:
        """``open_file`` opens a memory file for reading (a workspace passes its
        symlink-refusing opener, :class:`harness.fs.root.SafeRoot`) and ``store`` keeps the
        database (None: in this process's memory)."""
        self._open = open_file
        self._store: IndexStore = store if store is not None else MemoryStore()
        self._lock = threading.Lock()  # the memory tools may run on a background thread too
        self._seen: set[str] = set()
        self._tails: dict[str, tuple[Stamp, TailLine]] = {}
        self.reindexed = 0
        """How many times a changed or new file was read."""
        self.tokenised = 0
        """How many lines were tokenised (what an append or an index on disk saves)."""
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
        self._tails.clear()

    # --- keeping the index current ----------------------------------------------------------

    def _refresh(self, db: sqlite3.Connection, files: Sequence[tuple[Path, str]]) -> list[_Entry]:
        entries = []
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
                    tail = self._tail(row, handle)
            except _MISSING:
                self._tails.pop(name, None)
                if file_row(db, name) is not None:
                    with _transaction(db):
                        drop_file(db, name)
                continue
            self._seen.add(name)
            entries.append(_Entry(path, name, row, tail))
        return entries

    def _index(
        self, db: sqlite3.Connection, row: FileRow | None, name: str, handle: BinaryIO,
        stamp: Stamp,
    ) -> FileRow:  # fmt: skip
        """Index what ``handle`` holds beyond what ``row`` covers, a batch per transaction."""
        self.reindexed += 1
        with _transaction(db):
            if row is None:
                row = new_file(db, name)
            elif not self._appended(row, handle, stamp):
                clear_file(db, row)
        for batch in batches(handle, row.covered, row.lines, stamp[1]):
            with _transaction(db):
                add_batch(db, row, batch)
                row.covered = batch.end
                row.tail = _tail_digest(handle, batch.end)
                row.stamp = (stamp[0], 0, 0, 0)  # not whole yet: a later search goes on
                save_file(db, row)
            self.tokenised += batch.count
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

    def _tail(self, row: FileRow, handle: BinaryIO) -> TailLine | None:
        """The line after the file's last newline, tokenised once per change of the file."""
        size = row.stamp[1]
        if size <= row.covered:
            self._tails.pop(row.name, None)
            return None
        cached = self._tails.get(row.name)
        if cached is not None and cached[0] == row.stamp:
            return cached[1]
        tail = tail_line(os.pread(handle.fileno(), size - row.covered, row.covered))
        self.tokenised += 1
        self._tails[row.name] = (row.stamp, tail)
        return tail

    # --- queries ----------------------------------------------------------------------------

    def _search(
        self, db: sqlite3.Connection, files: Sequence[tuple[Path, str]], query: str, limit: int
    ) -> list[SearchHit]:
        entries = self._refresh(db, files)
        order = list(set(tokenize(query)))  # the order rank_lines adds the terms in
        needle = query.strip().lower()
        count = sum(e.row.nonblank + (e.tail.nonblank if e.tail else 0) for e in entries)
        total = sum(e.row.total + (e.tail.length if e.tail and e.tail.nonblank else 0)
                    for e in entries)  # fmt: skip
        held: list[dict[tuple[int, int], set[str]]] = []
        frequencies = [0] * len(order)
        for entry in entries:
            per_batch: dict[tuple[int, int], set[str]] = {}
            if count and order:
                for term, first, n, lines in term_batches(db, entry.row.id, order):
                    per_batch.setdefault((first, lines), set()).add(term)
                    frequencies[order.index(term)] += n
                if entry.tail is not None:
                    for k, term in enumerate(order):
                        frequencies[k] += bool(entry.tail.counts[term])
            held.append(per_batch)
        literal = self._literals(db, entries, needle, order, frequencies, held)
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

    def _literals(
        self, db: sqlite3.Connection, entries: list[_Entry], needle: str, order: list[str],
        frequencies: list[int], held: list[dict[tuple[int, int], set[str]]],
    ) -> list[list[tuple[int, str]]]:  # fmt: skip
        """Per entry, its lines that hold ``needle`` literally: read from the lines that hold
        the rarest of :func:`~harness.memory.index_query.needle_terms` (query terms all, so
        their counts are known) when it is in at most an eighth of the lines, otherwise by a
        scan of each file."""
        if not needle:
            return [[] for _ in entries]
        keys = [order.index(t) for t in needle_terms(needle) if t in order]
        lines = sum(e.row.lines + (e.tail is not None) for e in entries)
        rarest = min(keys, key=frequencies.__getitem__, default=None)
        if rarest is None or frequencies[rarest] * 8 > lines:
            return [self._scan(entry, needle) for entry in entries]
        term = order[rarest]
        return [
            self._read_lines(db, e, needle, term, [b for b, ts in held[p].items() if term in ts])
            for p, e in enumerate(entries)
        ]

    def _scan(self, entry: _Entry, needle: str) -> list[tuple[int, str]]:
        self.scanned += entry.row.stamp[1]
        try:
            with self._open(entry.path) as handle:
                return literal_lines(handle, entry.row.stamp[1], needle)
        except _MISSING:
            return []

    def _read_lines(
        self, db: sqlite3.Connection, entry: _Entry, needle: str, term: str,
        batches: list[tuple[int, int]],
    ) -> list[tuple[int, str]]:  # fmt: skip
        """The lines of ``entry`` holding ``term`` (and its line after the last newline)
        whose lower-cased text holds ``needle``, each read by its offset."""
        row, found = entry.row, []
        wanted: list[tuple[int, int]] = []  # (line, where it starts)
        for first, count in sorted(batches):
            starts = batch_starts(db, row.id, first, count)
            for line in batch_postings(db, row.id, first, count, [term])[term][0]:
                wanted.append((line, starts[line - first]))
        if entry.tail is not None and entry.tail.counts[term]:
            wanted.append((row.lines, row.covered))
        try:
            with self._open(entry.path) as handle:
                for line, start in wanted:
                    handle.seek(start)
                    raw = handle.readline(max(row.stamp[1] - start, 0))
                    self.scanned += len(raw)
                    text = raw.removesuffix(b"\n").decode("utf-8", errors="replace")
                    if needle in text.lower():
                        found.append((line, text))
        except _MISSING:
            return []
        return found

    def _score(
        self, db: sqlite3.Connection, entry: _Entry, position: int, order: list[str],
        held: dict[tuple[int, int], set[str]], literal: list[tuple[int, str]], tables: Tables,
        ranked: Ranked, literal_scores: dict[tuple[int, int], float],
    ) -> None:  # fmt: skip
        """Score ``entry``'s batches that hold a query term (and its line after the last
        newline): record its literal lines' scores, offer the others to ``ranked``."""
        lines = [index for index, _ in literal]
        for first, count, found in self._parts(db, entry, order, held):
            scores = batch_scores(first, count, found, tables)
            lo, hi = bisect.bisect_left(lines, first), bisect.bisect_left(lines, first + count)
            for line in lines[lo:hi]:
                literal_scores[(position, line)] = scores[line - first]
                scores[line - first] = 0.0  # literal lines are not ranked a second time
            ranked.offer(scores, first, entry.name, position)

    @staticmethod
    def _parts(
        db: sqlite3.Connection,
        entry: _Entry,
        order: list[str],
        held: dict[tuple[int, int], set[str]],
    ) -> Iterator[tuple[int, int, Held]]:
        """Per batch holding a query term (then the line after the last newline): its first
        line, its line count and its postings of the query terms, read one batch at a time."""
        for first, count in sorted(held):
            postings = batch_postings(db, entry.row.id, first, count, held[first, count])
            yield first, count, [(k, *postings[t]) for k, t in enumerate(order) if t in postings]
        tail, index = entry.tail, entry.row.lines
        if tail is not None and any(tail.counts[t] for t in order):
            yield index, 1, [
                (k, array("I", [index]), array("Q", [tail.counts[t] << TF_SHIFT | tail.length]))
                for k, t in enumerate(order) if tail.counts[t]
            ]  # fmt: skip

    def _line_text(self, db: sqlite3.Connection, entry: _Entry, index: int) -> str:
        row = entry.row
        start = row.covered if index == row.lines else line_start(db, row.id, index)
        try:
            with self._open(entry.path) as handle:
                handle.seek(start)
                raw = handle.readline(max(row.stamp[1] - start, 0))
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
