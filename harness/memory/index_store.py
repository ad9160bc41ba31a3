"""memory_search's index on disk: an SQLite database of postings, one row per term and batch.

Tables (:data:`SCHEMA`): ``meta`` (the format and the tokenizer's fingerprint), ``files`` (per
memory file: its change stamp, how far it is indexed, a digest of the bytes just before that
point, its line counts), ``batches`` (per run of up to
:data:`~harness.memory.index_build.BATCH_LINES` lines: where each line starts, as a flat
``array`` of 8-byte offsets) and ``postings`` (per term and batch: the lines holding it and a
code per line, two flat arrays, keyed by file, term, batch). A query reads the rows of its
terms only, batch by batch, and ``array.frombytes`` turns a row into numbers at memory speed.

Why SQLite and not FTS5 on it: measured on this machine at 100K lines (the benchmark's
corpus), an FTS5 table (``detail=none``, the text pre-tokenised by ``tokenize``, since FTS5's
tokenizers cannot be replaced from Python and give neither these CJK characters and pairs nor
Python's lower-casing) built as fast, but answering ``上海港 booking`` (six terms, each in every
line) took 0.89 s with the BM25 sums computed in SQL, and fetching one term's rowids out of it
0.38 µs per line, where the rows here take about 25 ms in all; FTS5's own ``bm25()`` is
another formula (k1 = 1.2, another IDF) and its contentless tables (3.40 here) cannot delete
a row without its text. SQLite itself gives what the index needs: a transaction per batch
(a killed build keeps what it committed and goes on from there), WAL for readers, a file that
says when it is damaged, bounded memory.

:func:`check_schema` creates the tables in an empty database and refuses (raising
:class:`DamagedError`) one that is not an index of this format and tokenizer; the index moves
such a file aside and builds a new one.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.memory.index_build import BATCH_LINES, Batch
from harness.text_search import K1, B, tokenize

__all__ = [
    "DamagedError",
    "FileRow",
    "Stamp",
    "add_batch",
    "batch_postings",
    "check_schema",
    "clear_file",
    "drop_file",
    "file_row",
    "line_start",
    "merge_tail",
    "save_file",
    "term_batches",
]

Stamp = tuple[int, int, int, int]
"""inode, size, mtime, ctime (ns) of a memory file."""

FORMAT = "ctxlab-memory-index v2"
SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID;
CREATE TABLE files(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, ino INTEGER NOT NULL,
  size INTEGER NOT NULL, mtime INTEGER NOT NULL, ctime INTEGER NOT NULL,
  covered INTEGER NOT NULL, tail BLOB NOT NULL, lines INTEGER NOT NULL,
  nonblank INTEGER NOT NULL, total INTEGER NOT NULL);
CREATE TABLE batches(file INTEGER, first INTEGER, count INTEGER NOT NULL, starts BLOB NOT NULL,
  PRIMARY KEY(file, first)) WITHOUT ROWID;
CREATE TABLE postings(file INTEGER, term TEXT, first INTEGER, n INTEGER NOT NULL,
  lines BLOB NOT NULL, codes BLOB NOT NULL, PRIMARY KEY(file, term, first)) WITHOUT ROWID;
"""
_PROBE = "Probe ALPHA-7 上海港 booking BK_9 夜莺 Σίσυφος İstanbul ﬁ 々 ｱ"
SMALL_BATCH = 4_096
"""Trailing batches (appends) are merged while the two last together hold at most this many
lines, or the earlier is no more than twice the later (so a file appended to line by line
keeps a few batches, each line's postings copied a few times)."""


def _fingerprint() -> bytes:
    """Changes when the tokenizer, the scoring constants or the array layout change."""
    text = repr((FORMAT, tokenize(_PROBE), K1, B, sys.byteorder))
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


FINGERPRINT = _fingerprint()


class DamagedError(Exception):
    """The index database is not one this code wrote, or holds rows that cannot be right."""


def check_schema(db: sqlite3.Connection) -> None:
    """Create the tables in an empty database; DamagedError when it holds anything else."""
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    if not tables:
        db.execute("BEGIN IMMEDIATE")
        for statement in SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (FINGERPRINT,))
        db.execute("COMMIT")
        return
    found = db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
    if found is None or found[0] != FINGERPRINT:
        raise DamagedError("the index was written by another format or tokenizer")


@dataclass
class FileRow:
    """A memory file as the index holds it."""

    id: int
    name: str
    stamp: Stamp
    covered: int
    """Bytes indexed: up to the last newline read."""
    tail: bytes
    """A digest of the bytes just before ``covered`` (what tells an append from a rewrite)."""
    lines: int
    """Complete lines indexed."""
    nonblank: int
    total: int


def file_row(db: sqlite3.Connection, name: str) -> FileRow | None:
    row = db.execute(
        "SELECT id, ino, size, mtime, ctime, covered, tail, lines, nonblank, total FROM files "
        "WHERE name = ?",
        (name,),
    ).fetchone()
    if row is None:
        return None
    number, ino, size, mtime, ctime, covered, tail, lines, nonblank, total = row
    return FileRow(number, name, (ino, size, mtime, ctime), covered, tail, lines, nonblank, total)


def new_file(db: sqlite3.Connection, name: str) -> FileRow:
    cursor = db.execute(
        "INSERT INTO files(name, ino, size, mtime, ctime, covered, tail, lines, nonblank, total) "
        "VALUES (?, 0, 0, 0, 0, 0, x'', 0, 0, 0)",
        (name,),
    )
    assert cursor.lastrowid is not None
    return FileRow(cursor.lastrowid, name, (0, 0, 0, 0), 0, b"", 0, 0, 0)


def save_file(db: sqlite3.Connection, row: FileRow) -> None:
    db.execute(
        "UPDATE files SET ino = ?, size = ?, mtime = ?, ctime = ?, covered = ?, tail = ?, "
        "lines = ?, nonblank = ?, total = ? WHERE id = ?",
        (*row.stamp, row.covered, row.tail, row.lines, row.nonblank, row.total, row.id),
    )


def clear_file(db: sqlite3.Connection, row: FileRow) -> None:
    """Forget what was indexed of the file (it is indexed anew from its first byte)."""
    db.execute("DELETE FROM postings WHERE file = ?", (row.id,))
    db.execute("DELETE FROM batches WHERE file = ?", (row.id,))
    row.stamp, row.covered, row.tail = (0, 0, 0, 0), 0, b""
    row.lines = row.nonblank = row.total = 0
    save_file(db, row)


def drop_file(db: sqlite3.Connection, name: str) -> None:
    row = file_row(db, name)
    if row is not None:
        clear_file(db, row)
        db.execute("DELETE FROM files WHERE id = ?", (row.id,))


def add_batch(db: sqlite3.Connection, row: FileRow, batch: Batch) -> None:
    """Store ``batch`` (the lines after ``row.lines``) and count it into ``row``."""
    if batch.first != row.lines:
        raise DamagedError("a batch out of order")
    db.execute(
        "INSERT INTO batches VALUES (?, ?, ?, ?)",
        (row.id, batch.first, batch.count, batch.starts.tobytes()),
    )
    db.executemany(
        "INSERT INTO postings VALUES (?, ?, ?, ?, ?, ?)",
        (
            (row.id, term, batch.first, len(lines), lines.tobytes(), codes.tobytes())
            for term, (lines, codes) in batch.postings.items()
        ),
    )
    row.lines += batch.count
    row.nonblank += batch.nonblank
    row.total += batch.total


def term_batches(
    db: sqlite3.Connection, file: int, terms: Sequence[str]
) -> list[tuple[str, int, int, int]]:
    """``(term, batch's first line, lines holding it, batch's line count)`` for each of
    ``terms`` the file holds."""
    marks = ",".join("?" * len(terms))
    return db.execute(
        "SELECT p.term, p.first, p.n, b.count FROM postings p JOIN batches b "
        f"ON b.file = p.file AND b.first = p.first WHERE p.file = ? AND p.term IN ({marks})",
        (file, *terms),
    ).fetchall()


def batch_postings(
    db: sqlite3.Connection, file: int, first: int, count: int, terms: Iterable[str]
) -> dict[str, tuple[array[int], array[int]]]:
    """The postings of ``terms`` in one batch, checked (DamagedError: rows that lie)."""
    wanted = list(terms)
    marks = ",".join("?" * len(wanted))
    found: dict[str, tuple[array[int], array[int]]] = {}
    for term, n, line_bytes, code_bytes in db.execute(
        f"SELECT term, n, lines, codes FROM postings WHERE file = ? AND term IN ({marks}) "
        "AND first = ?",
        (file, *wanted, first),
    ):
        lines, codes = array("I"), array("Q")
        try:
            lines.frombytes(line_bytes)
            codes.frombytes(code_bytes)
        except (TypeError, ValueError):
            raise DamagedError("a postings row is damaged") from None
        if not (len(lines) == len(codes) == n > 0) or not (
            first <= lines[0] and lines[-1] < first + count
        ):
            raise DamagedError("a postings row points outside its batch")
        found[term] = (lines, codes)
    return found


def line_start(db: sqlite3.Connection, file: int, index: int) -> int:
    """Where line ``index`` (0-based, indexed) of a file starts."""
    row = db.execute(
        "SELECT first, count, starts FROM batches WHERE file = ? AND first <= ? "
        "ORDER BY first DESC LIMIT 1",
        (file, index),
    ).fetchone()
    if row is None or not row[0] <= index < row[0] + row[1]:
        raise DamagedError("a line the index does not hold")
    starts = array("Q")
    try:
        starts.frombytes(row[2])
        return starts[index - row[0]]
    except (TypeError, ValueError, IndexError):
        raise DamagedError("a batch's line starts are damaged") from None


def merge_tail(db: sqlite3.Connection, file: int) -> int:
    """Merge a file's last batches while they are small (see :data:`SMALL_BATCH`); how many
    merges were made. The postings are concatenated, nothing is tokenised again."""
    merged = 0
    while True:
        last_two = db.execute(
            "SELECT first, count, starts FROM batches WHERE file = ? ORDER BY first DESC LIMIT 2",
            (file,),
        ).fetchall()
        if len(last_two) < 2:
            return merged
        (later, later_count, later_starts), (earlier, earlier_count, earlier_starts) = last_two
        both = earlier_count + later_count
        if both > BATCH_LINES or (both > SMALL_BATCH and earlier_count > 2 * later_count):
            return merged
        rows: dict[str, list[tuple[int, bytes, bytes]]] = {}
        for term, first, n, lines, codes in db.execute(
            "SELECT term, first, n, lines, codes FROM postings WHERE file = ? AND first IN (?, ?)",
            (file, earlier, later),
        ):
            rows.setdefault(term, []).append((first, n, lines, codes))
        db.execute("DELETE FROM postings WHERE file = ? AND first = ?", (file, later))
        db.execute("DELETE FROM batches WHERE file = ? AND first = ?", (file, later))
        db.execute(
            "UPDATE batches SET count = ?, starts = ? WHERE file = ? AND first = ?",
            (both, earlier_starts + later_starts, file, earlier),
        )
        db.executemany(
            "INSERT OR REPLACE INTO postings VALUES (?, ?, ?, ?, ?, ?)",
            (
                (file, term, earlier, sum(p[1] for p in parts),
                 b"".join(p[2] for p in parts), b"".join(p[3] for p in parts))
                for term, parts in ((t, sorted(ps)) for t, ps in rows.items())
            ),
        )  # fmt: skip
        merged += 1
