"""``memory_search``'s index, kept between queries.

:func:`harness.text_search.rank_lines` tokenises every line on every query. A
:class:`MemoryIndex` keeps, per memory file, its lines, their tokens and an inverted index, and
re-reads a file only when it changed (inode, size, mtime or ctime differ from what was indexed;
MEMORY.md is replaced atomically, the daily files grow). A query then costs a ``stat`` per file,
a substring search over each file's lower-cased text for the literal matches, and BM25 over the
postings of the query's terms: the same hits, scores and order as :func:`rank_lines` over the
same lines, literal line matches first. A file is stat-ed before it is read, so a write that
lands in between is picked up by the next query.
"""

from __future__ import annotations

import bisect
import math
import os
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.text_search import K1, B, SearchHit, SearchLine, tokenize

__all__ = ["MemoryIndex", "stamp_of"]

Reader = Callable[[Path], list[str]]
Stamp = tuple[int, int, int, int]
Stamper = Callable[[Path], "Stamp | None"]


@dataclass
class _FileIndex:
    """One file's non-blank lines, ready for queries."""

    name: str
    stamp: Stamp
    lines: list[SearchLine]
    lengths: list[int]
    postings: dict[str, list[tuple[int, int]]]
    """term -> [(line index, count)]"""
    frequency: Counter[str]
    """term -> how many lines hold it"""
    text: str = ""
    """The lines lower-cased, joined by newlines (for the literal matches)."""
    starts: list[int] = field(default_factory=list)
    """Where each line starts in ``text``."""


def _index_file(name: str, stamp: Stamp, raw: list[str]) -> _FileIndex:
    lines: list[SearchLine] = []
    lengths: list[int] = []
    starts: list[int] = []
    parts: list[str] = []
    postings: dict[str, list[tuple[int, int]]] = {}
    offset = 0
    for number, text in enumerate(raw, 1):
        if not text.strip():
            continue
        index = len(lines)
        lines.append(SearchLine(name, number, text))
        tokens = tokenize(text)
        lengths.append(len(tokens))
        for term, count in Counter(tokens).items():
            postings.setdefault(term, []).append((index, count))
        lowered = text.lower()
        starts.append(offset)
        parts.append(lowered)
        offset += len(lowered) + 1
    frequency = Counter({term: len(entries) for term, entries in postings.items()})
    return _FileIndex(name, stamp, lines, lengths, postings, frequency, "\n".join(parts), starts)


def stamp_of(info: os.stat_result) -> Stamp:
    """What tells a changed file: inode, size, mtime and ctime."""
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _stamp(path: Path) -> Stamp | None:
    try:
        return stamp_of(os.stat(path))
    except FileNotFoundError:
        return None


class MemoryIndex:
    """BM25 plus literal line matches over a set of files, re-indexed per changed file."""

    def __init__(self, read: Reader, stamp: Stamper = _stamp) -> None:
        """``read`` gives a file's lines and ``stamp`` its change stamp (None: no such file);
        a workspace passes its symlink-refusing readers (:class:`harness.fs.root.SafeRoot`)."""
        self._read = read
        self._stamp = stamp
        self._files: dict[Path, _FileIndex] = {}
        self._lock = threading.Lock()  # the memory tools may run on a background thread too
        self.reindexed = 0
        """How many times a file was (re)read and indexed."""

    def _refresh(self, files: Sequence[tuple[Path, str]]) -> list[_FileIndex]:
        current = []
        for path, name in files:
            stamp = self._stamp(path)
            if stamp is None:
                self._files.pop(path, None)
                continue
            entry = self._files.get(path)
            if entry is None or entry.stamp != stamp or entry.name != name:
                entry = _index_file(name, stamp, self._read(path))
                self._files[path] = entry
                self.reindexed += 1
            current.append(entry)
        return current

    def search(
        self, files: Sequence[tuple[Path, str]], query: str, limit: int = 20
    ) -> list[SearchHit]:
        """:func:`~harness.text_search.rank_lines` over the non-blank lines of ``files``
        (``(path, name shown in results)``, in order), from the index."""
        with self._lock:
            entries = self._refresh(files)
        needle = query.strip().lower()
        terms = set(tokenize(query))
        scores = _bm25(entries, terms)
        hits = []
        for position, entry in enumerate(entries):
            literal = _literal_lines(entry, needle) if needle else set()
            found = set(scores[position]) | literal
            for index in found:
                line = entry.lines[index]
                score = scores[position].get(index, 0.0)
                if index in literal or score > 0:
                    hits.append(SearchHit(line.file, line.line, line.text, score, index in literal))
        hits.sort(key=lambda h: (not h.literal, -h.score, h.file, h.line))
        literal_count = sum(h.literal for h in hits)
        return hits[: max(limit, literal_count)]


def _literal_lines(entry: _FileIndex, needle: str) -> set[int]:
    """The lines of ``entry`` that contain ``needle`` (already lower-cased)."""
    found: set[int] = set()
    if "\n" in needle:
        return found  # a line never holds a newline
    at = entry.text.find(needle)
    while at >= 0:
        index = bisect.bisect_right(entry.starts, at) - 1
        found.add(index)
        # jump to the next line: one line counts once
        next_start = entry.starts[index + 1] if index + 1 < len(entry.starts) else len(entry.text)
        at = entry.text.find(needle, next_start)
    return found


def _bm25(entries: list[_FileIndex], terms: set[str]) -> list[dict[int, float]]:
    """Per file, line index -> score, for the lines holding a query term (as ``_bm25`` in
    :mod:`harness.text_search` computes it, term by term in the same order)."""
    scores: list[dict[int, float]] = [{} for _ in entries]
    count = sum(len(e.lines) for e in entries)
    if not count or not terms:
        return scores
    average = sum(sum(e.lengths) for e in entries) / count or 1.0
    frequency = {t: sum(e.frequency.get(t, 0) for e in entries) for t in terms}
    for term in terms:
        df = frequency[term]
        if not df:
            continue
        idf = math.log(1 + (count - df + 0.5) / (df + 0.5))
        for position, entry in enumerate(entries):
            found = scores[position]
            for index, tf in entry.postings.get(term, ()):
                norm = tf + K1 * (1 - B + B * entry.lengths[index] / average)
                found[index] = found.get(index, 0.0) + idf * tf * (K1 + 1) / norm
    return scores
