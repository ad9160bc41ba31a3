"""``memory_search``'s index: kept between queries, grown by appends, cached on disk.

:func:`harness.text_search.rank_lines` tokenises every line on every query. A
:class:`MemoryIndex` keeps, per memory file, its lines, each line's token count and an inverted
index (term -> the lines holding it and how often), and answers a query with exactly
:func:`rank_lines`'s hits, scores and order (literal line matches first, then BM25, cut at the
limit):

- **Unchanged file**: a ``stat`` (inode, size, mtime, ctime as indexed) and nothing else.
- **Changed file**: its bytes are read and the part indexed before is checked by a SHA-256
  digest of it; when the file still starts with those bytes (a daily file grows by appends;
  MEMORY.md is replaced atomically, usually by itself plus a new section) only the lines after
  them are tokenised (:attr:`MemoryIndex.tokenised` counts them), else the file is indexed anew.
- **A query** costs the postings of its terms: per term the score of each distinct (count,
  line length) pair is computed once and added to the lines holding it, then the best ``limit``
  lines are picked by threshold (``heapq.nlargest`` over the scores, ties by file and line)
  instead of building and sorting a hit per matching line. Literal matches come from a
  substring search over each file's lower-cased text (UTF-8); a hit's text is decoded from the
  file's bytes only for the lines returned.
- **Cache** (:class:`IndexCache`): each file's index is written beside the memory files, so
  the first query of a new process reads it instead of tokenising every line. It is a cache:
  written atomically (temp file + rename, no fsync), checked on load (format, tokenizer
  fingerprint, the file's name, a CRC-32 of the whole cache file, and the digest of the memory
  file's bytes it covers), and anything that fails a check (torn, foreign, stale) is ignored and
  rebuilt, never an error to the user; postings that point outside the file (a hand-made cache
  that passes the checks) are found as a query reads them, and the file is indexed anew. It
  holds the terms, counts, line lengths and offsets and the lower-cased text of the memory file
  it belongs to, nothing else, and is deleted when a search finds that file gone. It is
  rewritten once a quarter of its file's lines were tokenised since it was written, so a later
  process tokenises at most that.

SQLite FTS5 was considered and not used: its ``bm25()`` is another formula (k1 = 1.2, a
different IDF) so the scores would still be computed here, its tokenizers do not produce this
module's CJK characters and pairs, and a query over two terms in every line still visits every
line's postings, which is the cost to cut (here: once per distinct (count, length) pair); flat
arrays read back by :meth:`array.array.frombytes` load fast with the standard library alone.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import struct
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from harness.memory.index_query import DamagedError, search_entries
from harness.memory.index_store import (
    TF_SHIFT,
    FileIndex,
    IndexCache,
    Stamp,
    append_lowered,
    decode,
    digest_of,
    encode,
    flatten,
    new_entry,
)
from harness.text_search import SearchHit, tokenize

__all__ = ["IndexCache", "MemoryIndex", "stamp_of"]
Reader = Callable[[Path], bytes]
"""A file's bytes (empty when it is missing or not a regular file)."""
Stamper = Callable[[Path], "Stamp | None"]


def stamp_of(info: os.stat_result) -> Stamp:
    """What tells a changed file: inode, size, mtime and ctime."""
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _stamp(path: Path) -> Stamp | None:
    try:
        return stamp_of(os.stat(path))
    except FileNotFoundError:
        return None


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return b""


class MemoryIndex:
    """BM25 plus literal line matches over a set of files, indexed by what changed."""

    def __init__(
        self, read: Reader = _read, stamp: Stamper = _stamp, cache: IndexCache | None = None
    ) -> None:
        """``read`` gives a file's bytes and ``stamp`` its change stamp (None: no such file);
        a workspace passes its symlink-refusing readers (:class:`harness.fs.root.SafeRoot`)
        and a cache in the workspace (:class:`harness.memory.tools.WorkspaceIndexCache`)."""
        self._read = read
        self._stamp = stamp
        self._cache = cache
        self._files: dict[Path, FileIndex] = {}
        self._lock = threading.Lock()  # the memory tools may run on a background thread too
        self.reindexed = 0
        """How many times a file was (re)read."""
        self.tokenised = 0
        """How many lines were tokenised (what a cache load or an append saves)."""
        self.loaded = 0
        """How many file indexes were taken from the cache."""

    # --- keeping the index current ----------------------------------------------------------

    def _refresh(self, files: Sequence[tuple[Path, str]]) -> list[FileIndex]:
        current = []
        for path, name in files:
            stamp = self._stamp(path)
            if stamp is None:
                if self._files.pop(path, None) is not None or self._cache is not None:
                    self._forget(name)
                continue
            entry = self._files.get(path)
            if entry is None or entry.stamp != stamp or entry.name != name:
                entry = self._update(entry if entry and entry.name == name else None, name, stamp,
                                     self._read(path))  # fmt: skip
                self._files[path] = entry
                self.reindexed += 1
            current.append(entry)
        return current

    def _forget(self, name: str) -> None:
        if self._cache is not None:
            with contextlib.suppress(OSError):
                self._cache.remove(name)

    def _update(self, entry: FileIndex | None, name: str, stamp: Stamp, data: bytes) -> FileIndex:
        if entry is not None and (
            entry.covered > len(data)
            or digest_of(memoryview(data)[: entry.covered]) != entry.digest
        ):
            entry = None  # not a grown copy of what was indexed: index it anew
        if entry is None:
            entry = self._load(name, data)  # checked against ``data`` as it loads
        if entry is None:
            entry = new_entry(name)
        entry.stamp = stamp
        self._extend(entry, data)
        if self._cache is not None and entry.complete - entry.cached_lines >= max(
            1, entry.cached_lines // 4
        ):
            self._save(entry)
        return entry

    def _extend(self, entry: FileIndex, data: bytes) -> None:
        """Add the lines of ``data`` after ``entry.covered`` (the partial line is redone)."""
        if entry.partial is not None:  # the last line had no newline: it is read again
            entry.partial = None
            entry.line_starts.pop()
            entry.lengths.pop()
            cut = entry.starts.pop()
            entry.lowered = entry.lowered[: cut - 1] if entry.starts else b""
            entry.nonblank -= entry.partial_counts[0]
            entry.total -= entry.partial_counts[1]
            entry.partial_counts = (0, 0)
        end = data.rfind(b"\n") + 1
        chunk = data[entry.covered :]
        tail = chunk.decode("utf-8", errors="replace").split("\n")
        complete, last = tail[:-1], tail[-1]
        first = entry.count
        widths = (len(piece) + 1 for piece in chunk.split(b"\n"))
        starts = itertools.accumulate(widths, initial=entry.covered)
        entry.line_starts.extend(itertools.islice(starts, len(tail) if last else len(tail) - 1))
        entry.data = data
        if end > entry.covered:
            entry.digest = digest_of(memoryview(data)[:end])
            entry.covered = end
        for offset, text in enumerate(complete):
            self._add_line(entry, first + offset, text, entry.extra)
        entry.complete = first + len(complete)
        append_lowered(entry, "\n".join(complete), len(complete))
        if last:
            before = (entry.nonblank, entry.total)
            entry.partial = self._add_line(entry, entry.complete, last, None)
            entry.partial_counts = (entry.nonblank - before[0], entry.total - before[1])
            append_lowered(entry, last, 1)

    def _add_line(
        self,
        entry: FileIndex,
        index: int,
        text: str,
        into: dict[str, tuple[list[int], list[int]]] | None,
    ) -> Counter[str]:
        tokens = tokenize(text)
        self.tokenised += 1
        entry.lengths.append(len(tokens))
        counts = Counter(tokens)
        if text.strip():
            entry.nonblank += 1
            entry.total += len(tokens)
        if into is not None:
            length = len(tokens)
            for term, count in counts.items():
                found = into.get(term)
                if found is None:
                    into[term] = ([index], [count << TF_SHIFT | length])
                else:
                    found[0].append(index)
                    found[1].append(count << TF_SHIFT | length)
        return counts

    # --- the cache --------------------------------------------------------------------------

    def _save(self, entry: FileIndex) -> None:
        assert self._cache is not None
        base = flatten(entry.base, entry.extra)
        entry.base, entry.extra = base, {}
        try:
            self._cache.save(entry.name, encode(entry, base))
        except OSError:
            return  # a cache that cannot be written is only slower
        entry.cached_lines = entry.complete

    def _load(self, name: str, data: bytes) -> FileIndex | None:
        if self._cache is None:
            return None
        try:
            blob = self._cache.load(name)
        except OSError:
            return None
        if not blob:
            return None
        try:
            entry = decode(name, blob, data)
        except (ValueError, IndexError, struct.error, UnicodeDecodeError, OverflowError):
            entry = None
        if entry is not None:
            self.loaded += 1
        return entry

    # --- queries ----------------------------------------------------------------------------

    def search(
        self, files: Sequence[tuple[Path, str]], query: str, limit: int = 20
    ) -> list[SearchHit]:
        """:func:`~harness.text_search.rank_lines` over the non-blank lines of ``files``
        (``(path, name shown in results)``, in order), from the index."""
        with self._lock:
            entries = self._refresh(files)
            try:
                return search_entries(entries, query, limit)
            except (DamagedError, IndexError) as exc:  # a cache file that lies
                if isinstance(exc, DamagedError):
                    damaged = [exc.entry]
                else:
                    damaged = [e for e in entries if e.from_cache]
                    if not damaged:
                        raise
                self._files = {p: e for p, e in self._files.items() if e not in damaged}
                for entry in damaged:  # index those files anew, without their cache
                    self._forget(entry.name)
                return search_entries(self._refresh(files), query, limit)
