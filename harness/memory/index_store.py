"""memory_search's index on disk: an SQLite database of postings, one row per term and batch.

Tables (:data:`SCHEMA`): ``meta`` (the format and the tokenizer's fingerprint), ``files`` (per
memory file: its change stamp, how far it is indexed, a digest of the bytes just before that
point, its line counts), ``batches`` (per run of up to
:data:`~harness.memory.index_build.BATCH_LINES` lines: where each line starts, and its code for
a term it holds once, 1 << 32 | its token count, as flat ``array`` bytes; and the terms only one
of its lines holds, :mod:`harness.memory.index_singles`) and ``postings`` (per batch and term
held by two lines or more, keyed so: the lines holding it and how often, as flat arrays, each
left empty when it says nothing: a term in every line of the batch, a term once in each line,
which is most of a ledger's postings). A query reads the rows of its terms only, batch by batch;
``array.frombytes`` turns a row into numbers at memory speed and the codes the scoring wants
(count << 32 | line length) are made in C.

Why SQLite and not FTS5 on it: measured on this machine at 100K lines (the benchmark's
corpus), an FTS5 table (``detail=none``, the text pre-tokenised by ``tokenize``, since FTS5's
tokenizers cannot be replaced from Python and give neither these CJK characters and pairs nor
Python's lower-casing) built as fast, but answering ``上海港 booking`` (six terms, each in every
line) took 0.89 s with the BM25 sums computed in SQL, and fetching one term's rowids out of it
0.38 µs per line, where a query here reads and scores its rows in tens of milliseconds;
FTS5's own ``bm25()`` is another formula (k1 = 1.2, another IDF) and its contentless tables
(3.40 here) cannot delete a row without its text. SQLite itself gives what the index needs: a
transaction per batch (a killed build keeps what it committed and goes on from there), WAL for
readers, a file that says when it is damaged, bounded memory.

:func:`check_schema` creates the tables in an empty database and refuses (raising
:class:`DamagedError`) one that is not an index of this format and tokenizer; the index moves
such a file aside and builds a new one.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
import sqlite3
import sys
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from harness.memory.index_build import TF_SHIFT, Batch
from harness.memory.index_singles import Singles
from harness.text_search import K1, B, tokenize

__all__ = [
    "DamagedError",
    "FileRow",
    "Stamp",
    "add_batch",
    "batch_postings",
    "batch_singles",
    "batch_starts",
    "check_schema",
    "clear_file",
    "drop_file",
    "file_row",
    "insert_rows",
    "line_start",
    "save_file",
    "stored_array",
    "term_batches",
]

Stamp = tuple[int, int, int, int]
"""inode, size, mtime, ctime (ns) of a memory file."""

FORMAT = "ctxlab-memory-index v5"
SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID;
CREATE TABLE files(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, ino INTEGER NOT NULL,
  size INTEGER NOT NULL, mtime INTEGER NOT NULL, ctime INTEGER NOT NULL,
  covered INTEGER NOT NULL, tail BLOB NOT NULL, lines INTEGER NOT NULL,
  nonblank INTEGER NOT NULL, total INTEGER NOT NULL);
CREATE TABLE batches(file INTEGER, first INTEGER, count INTEGER NOT NULL, starts BLOB NOT NULL,
  ones BLOB NOT NULL, singles BLOB NOT NULL, single_lines BLOB NOT NULL,
  single_counts BLOB NOT NULL, PRIMARY KEY(file, first)) WITHOUT ROWID;
CREATE TABLE postings(file INTEGER, first INTEGER, term TEXT, n INTEGER NOT NULL,
  lines BLOB NOT NULL, counts BLOB NOT NULL, PRIMARY KEY(file, first, term)) WITHOUT ROWID;
"""
_PROBE = "Probe ALPHA-7 上海港 booking BK_9 夜莺 Σίσυφος İstanbul ﬁ 々 ｱ"


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


def _encode(count: int, lines: list[int], counts: list[int] | None) -> tuple[int, bytes, bytes]:
    """A postings row's n, lines and counts: no line numbers when every line of the batch
    holds the term, no counts when each holds it once (the common terms of a ledger cost
    nothing per line)."""
    n = len(lines)
    line_bytes = b"" if n == count else array("I", lines).tobytes()
    count_bytes = b"" if counts is None or max(counts) == 1 else array("I", counts).tobytes()
    return n, line_bytes, count_bytes


def add_batch(db: sqlite3.Connection, row: FileRow, batch: Batch) -> None:
    """Store ``batch`` (the lines after ``row.lines``) and count it into ``row``."""
    if batch.first != row.lines:
        raise DamagedError("a batch out of order")
    rows, single, repeats = [], [], batch.repeats
    for term, lines in sorted(batch.postings.items()):
        extra = repeats.get(term)
        if len(lines) == 1:  # one line holds it: the batch row's singles
            single.append((term, lines[0], extra[lines[0]] if extra else 1))
        else:
            rows.append((term, lines, [extra.get(i, 1) for i in lines] if extra else None))
    singles = Singles.of(single)
    db.execute(
        "INSERT INTO batches VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (row.id, batch.first, batch.count, batch.starts.tobytes(),
         _ones(batch.lengths).tobytes(), singles.terms, singles.lines, singles.counts),
    )  # fmt: skip
    insert_rows(db, row.id, batch.first, batch.count, rows)
    row.lines += batch.count
    row.nonblank += batch.nonblank
    row.total += batch.total


def insert_rows(
    db: sqlite3.Connection, file: int, first: int, count: int,
    rows: Iterable[tuple[str, list[int], list[int] | None]],
) -> None:  # fmt: skip
    db.executemany(
        "INSERT INTO postings VALUES (?, ?, ?, ?, ?, ?)",
        ((file, first, term, *_encode(count, lines, counts)) for term, lines, counts in rows),
    )


def term_batches(
    db: sqlite3.Connection, file: int, terms: Sequence[str]
) -> list[tuple[str, int, int, int]]:
    """``(term, batch's first line, lines holding it, batch's line count)`` for each of
    ``terms`` the file holds (a CROSS JOIN: batch by batch, a key lookup per term, never a
    scan of the file's postings), then each held by one line of a batch (its singles)."""
    marks = ",".join("?" * len(terms))
    found = db.execute(
        "SELECT p.term, b.first, p.n, b.count FROM batches b CROSS JOIN postings p "
        f"ON p.file = b.file AND p.first = b.first AND p.term IN ({marks}) WHERE b.file = ?",
        (*terms, file),
    ).fetchall()
    for first, count, singles in db.execute(
        "SELECT first, count, singles FROM batches WHERE file = ?", (file,)
    ):
        found.extend((t, first, 1, count) for t in terms if Singles(singles).holds(t))
    return found


def stored_array(kind: str, data: bytes, size: int) -> array[int]:
    found = array(kind)
    try:
        found.frombytes(data)
    except (TypeError, ValueError):
        raise DamagedError("a row's array is damaged") from None
    if len(found) != size:
        raise DamagedError("a row's array has the wrong length")
    return found


def _ones(lengths: array[int]) -> array[int]:
    """Each line's code for a term it holds once: 1 << 32 | its token count (stored so, a
    query takes them as they are)."""
    return array("Q", map(operator.or_, itertools.repeat(1 << TF_SHIFT), lengths))


def _stored_ones(db: sqlite3.Connection, file: int, first: int, count: int) -> array[int]:
    row = db.execute(
        "SELECT ones FROM batches WHERE file = ? AND first = ? AND count = ?",
        (file, first, count),
    ).fetchone()
    if row is None:
        raise DamagedError("a batch the index does not hold")
    return stored_array("Q", row[0], count)


def _listed(
    line_bytes: bytes, n: int, first: int, ones: array[int]
) -> tuple[array[int], array[int]]:
    """A postings row's lines and each line's code of one (DamagedError: outside its batch)."""
    lines = stored_array("I", line_bytes, n)
    try:  # a line before the batch is negative, one after it past ``ones``
        own = array("I", map(operator.sub, lines, itertools.repeat(first))) if first else lines
        return lines, array("Q", map(ones.__getitem__, own))
    except (OverflowError, IndexError):
        raise DamagedError("a postings row points outside its batch") from None


def batch_postings(
    db: sqlite3.Connection, file: int, first: int, count: int, terms: Iterable[str]
) -> dict[str, tuple[array[int], array[int]]]:
    """The postings of ``terms`` in one batch: the lines holding each and a code per line
    (count << 32 | line length), checked (DamagedError: rows that lie)."""
    wanted = list(terms)
    ones = _stored_ones(db, file, first, count)
    every: array[int] | None = None
    found: dict[str, tuple[array[int], array[int]]] = {}
    made: dict[tuple[bytes, bytes], tuple[array[int], array[int]]] = {}
    marks = ",".join("?" * len(wanted))
    for term, n, line_bytes, count_bytes in db.execute(
        f"SELECT term, n, lines, counts FROM postings WHERE file = ? AND first = ? "
        f"AND term IN ({marks})",
        (file, first, *wanted),
    ):
        same = made.get((line_bytes, count_bytes))
        if same is not None and len(same[0]) == n:  # terms in the same lines (CJK pairs)
            found[term] = same
            continue
        if line_bytes:
            lines, codes = _listed(line_bytes, n, first, ones)
        elif n == count:
            lines = every = every or array("I", range(first, first + count))
            codes = ones
        else:
            raise DamagedError("a postings row without lines is not the whole batch")
        if count_bytes:  # count << 32 | length: add (count - 1) << 32 to a count of one
            more = map(operator.sub, stored_array("I", count_bytes, n), itertools.repeat(1))
            shifted = map(operator.lshift, more, itertools.repeat(TF_SHIFT))
            codes = array("Q", map(operator.add, codes, shifted))
        found[term] = made[line_bytes, count_bytes] = (lines, codes)
    if missing := [term for term in wanted if term not in found]:
        found.update(_single_postings(db, file, first, ones, missing))
    return found


def _single_postings(
    db: sqlite3.Connection, file: int, first: int, ones: array[int], terms: list[str]
) -> Iterator[tuple[str, tuple[array[int], array[int]]]]:
    """The postings of ``terms`` held by one line of the batch (its singles)."""
    singles = batch_singles(db, file, first)
    for term in terms:
        try:
            held = singles.find(term)
        except ValueError:
            raise DamagedError("a batch's single-line terms are damaged") from None
        if held is None:
            continue
        line, times = held
        if not 0 <= line - first < len(ones) or times < 1:
            raise DamagedError("a single-line term points outside its batch")
        code = ones[line - first] + ((times - 1) << TF_SHIFT)
        yield term, (array("I", [line]), array("Q", [code]))


def batch_starts(db: sqlite3.Connection, file: int, first: int, count: int) -> array[int]:
    """Where each line of a batch starts."""
    row = db.execute(
        "SELECT starts FROM batches WHERE file = ? AND first = ? AND count = ?",
        (file, first, count),
    ).fetchone()
    if row is None:
        raise DamagedError("a batch the index does not hold")
    return stored_array("Q", row[0], count)


def line_start(db: sqlite3.Connection, file: int, index: int) -> int:
    """Where line ``index`` (0-based, indexed) of a file starts."""
    row = db.execute(
        "SELECT first, count, starts FROM batches WHERE file = ? AND first <= ? "
        "ORDER BY first DESC LIMIT 1",
        (file, index),
    ).fetchone()
    if row is None or not row[0] <= index < row[0] + row[1]:
        raise DamagedError("a line the index does not hold")
    return stored_array("Q", row[2], row[1])[index - row[0]]


def batch_singles(db: sqlite3.Connection, file: int, first: int) -> Singles:
    """The single-line terms of a batch (none for a batch the index does not hold)."""
    row = db.execute(
        "SELECT singles, single_lines, single_counts FROM batches WHERE file = ? AND first = ?",
        (file, first),
    ).fetchone()
    return Singles() if row is None else Singles(*row)
