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

import bisect
import contextlib
import hashlib
import heapq
import itertools
import math
import operator
import os
import struct
import sys
import threading
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from harness.text_search import K1, B, SearchHit, tokenize

__all__ = ["IndexCache", "MemoryIndex", "stamp_of"]

Reader = Callable[[Path], bytes]
"""A file's bytes (empty when it is missing or not a regular file)."""
Stamp = tuple[int, int, int, int]
Stamper = Callable[[Path], "Stamp | None"]

_TF_SHIFT = 32
_LENGTH_MASK = (1 << _TF_SHIFT) - 1
_MAGIC = b"ctxlab-memory-index\x00v1\x00"
_HEADER = struct.Struct("<16s16sQ16sQQQQQQ")
"""fingerprint, name digest, covered bytes, their digest, lines, non-blank lines, terms,
postings, terms blob bytes, lower-cased text bytes."""
_DIGEST = 16
_PROBE = "Probe ALPHA-7 上海港 booking BK_9 夜莺 Σίσυφος İstanbul ﬁ 々 ｱ"


def _fingerprint() -> bytes:
    """Changes when the tokenizer, the scoring constants or the array layout change."""
    text = repr((tokenize(_PROBE), K1, B, sys.byteorder, array("I").itemsize, array("Q").itemsize))
    return hashlib.blake2b(text.encode(), digest_size=_DIGEST).digest()


_FINGERPRINT = _fingerprint()


def _digest(data: bytes | memoryview) -> bytes:
    """What tells the bytes a file held (SHA-256, cut to 16 bytes)."""
    return hashlib.sha256(data).digest()[:_DIGEST]


def _check(data: bytes | memoryview) -> bytes:
    """The cache file's checksum (CRC-32: it finds a torn or damaged file, fast)."""
    return struct.pack("<I", zlib.crc32(data))


_CHECK = 4


class _DamagedError(Exception):
    """A cached index whose postings point outside its file (found as a query reads them)."""

    def __init__(self, entry: _FileIndex) -> None:
        self.entry = entry


class IndexCache(Protocol):
    """Where the per-file indexes are kept between processes (bytes by file name)."""

    def load(self, name: str) -> bytes | None: ...

    def save(self, name: str, data: bytes) -> None: ...

    def remove(self, name: str) -> None: ...


@dataclass
class _Base:
    """Postings in flat arrays (as built, or as loaded from the cache): term ``k``'s postings
    are ``lines[offsets[k]:offsets[k + 1]]`` with ``codes`` = count << 32 | line length."""

    terms: list[str]
    """Sorted (looked up by bisection: no dict to build when loaded)."""
    offsets: array[int]
    lines: array[int]
    codes: array[int]

    def find(self, term: str) -> int | None:
        k = bisect.bisect_left(self.terms, term)
        return k if k < len(self.terms) and self.terms[k] == term else None


_EMPTY = _Base([], array("Q", [0]), array("I"), array("Q"))


@dataclass
class _FileIndex:
    """One file's lines (blank ones included, so index i is line i + 1), ready for queries."""

    name: str
    stamp: Stamp
    covered: int
    """Bytes up to the last newline: what the complete lines came from."""
    digest: bytes
    """Their digest (:func:`_digest`)."""
    data: bytes
    """The file's bytes as last read (a line's text is decoded from them when it is a hit)."""
    line_starts: array[int]
    """Where each line starts in ``data``."""
    lengths: array[int]
    """Tokens per line (0 for a blank line)."""
    nonblank: int
    total: int
    """The sum of ``lengths`` over the non-blank lines (blank ones have none)."""
    base: _Base
    extra: dict[str, tuple[list[int], list[int]]]
    """Postings of the lines added after ``base`` (appended), as lists."""
    partial: Counter[str] | None
    """The tokens of a last line without a newline (not in ``base`` or ``extra``)."""
    lowered: bytes
    """The lines lower-cased, joined by newlines, in UTF-8 (for the literal matches)."""
    starts: list[int]
    """Where each line starts in ``lowered``."""
    cached_lines: int = 0
    """How many complete lines the cache on disk holds (0: none)."""
    complete: int = 0
    """How many of ``lines`` are complete (the rest, at most one, is the partial line)."""
    partial_counts: tuple[int, int] = (0, 0)
    """What the partial line adds to ``nonblank`` and ``total``."""
    from_cache: bool = False

    @property
    def count(self) -> int:
        """How many lines (blank ones and the partial one included)."""
        return len(self.line_starts)

    def line(self, index: int) -> str:
        """Line ``index``'s text (as :func:`harness.fs.files.read_lines` decodes it: the file
        is cut at newlines, which UTF-8 never holds inside a character)."""
        start = self.line_starts[index]
        if index + 1 < len(self.line_starts):
            end = self.line_starts[index + 1] - 1
        else:
            end = len(self.data) - self.data.endswith(b"\n")
        return self.data[start:end].decode("utf-8", errors="replace")


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
        self._files: dict[Path, _FileIndex] = {}
        self._lock = threading.Lock()  # the memory tools may run on a background thread too
        self.reindexed = 0
        """How many times a file was (re)read."""
        self.tokenised = 0
        """How many lines were tokenised (what a cache load or an append saves)."""
        self.loaded = 0
        """How many file indexes were taken from the cache."""

    # --- keeping the index current ----------------------------------------------------------

    def _refresh(self, files: Sequence[tuple[Path, str]]) -> list[_FileIndex]:
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

    def _update(self, entry: _FileIndex | None, name: str, stamp: Stamp, data: bytes) -> _FileIndex:
        if entry is not None and (
            entry.covered > len(data) or _digest(memoryview(data)[: entry.covered]) != entry.digest
        ):
            entry = None  # not a grown copy of what was indexed: index it anew
        if entry is None:
            entry = self._load(name, data)  # checked against ``data`` as it loads
        if entry is None:
            entry = _new_entry(name)
        entry.stamp = stamp
        self._extend(entry, data)
        if self._cache is not None and entry.complete - entry.cached_lines >= max(
            1, entry.cached_lines // 4
        ):
            self._save(entry)
        return entry

    def _extend(self, entry: _FileIndex, data: bytes) -> None:
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
            entry.digest = _digest(memoryview(data)[:end])
            entry.covered = end
        for offset, text in enumerate(complete):
            self._add_line(entry, first + offset, text, entry.extra)
        entry.complete = first + len(complete)
        self._append_lowered(entry, "\n".join(complete), len(complete))
        if last:
            before = (entry.nonblank, entry.total)
            entry.partial = self._add_line(entry, entry.complete, last, None)
            entry.partial_counts = (entry.nonblank - before[0], entry.total - before[1])
            self._append_lowered(entry, last, 1)

    def _add_line(
        self,
        entry: _FileIndex,
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
                    into[term] = ([index], [count << _TF_SHIFT | length])
                else:
                    found[0].append(index)
                    found[1].append(count << _TF_SHIFT | length)
        return counts

    @staticmethod
    def _append_lowered(entry: _FileIndex, text: str, count: int) -> None:
        """Add ``count`` lines (``text``, joined by newlines) to ``entry.lowered``. Lowering
        the joined lines is lowering each: the one rule that looks at neighbours (a final
        sigma) stops at a newline as at the end of a line."""
        if not count:
            return
        lowered = text.lower().encode("utf-8")
        had = bool(entry.starts)
        start = len(entry.lowered) + 1 if had else 0
        widths = map(len, lowered.split(b"\n"))
        steps = map(operator.add, itertools.islice(widths, count - 1), itertools.repeat(1))
        entry.starts.extend(itertools.accumulate(steps, initial=start))
        entry.lowered = b"".join((entry.lowered, b"\n", lowered)) if had else lowered

    # --- the cache --------------------------------------------------------------------------

    def _save(self, entry: _FileIndex) -> None:
        assert self._cache is not None
        base = _flatten(entry.base, entry.extra)
        entry.base, entry.extra = base, {}
        try:
            self._cache.save(entry.name, _encode(entry, base))
        except OSError:
            return  # a cache that cannot be written is only slower
        entry.cached_lines = entry.complete

    def _load(self, name: str, data: bytes) -> _FileIndex | None:
        if self._cache is None:
            return None
        try:
            blob = self._cache.load(name)
        except OSError:
            return None
        if not blob:
            return None
        try:
            entry = _decode(name, blob, data)
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
                return _search(entries, query, limit)
            except (_DamagedError, IndexError) as exc:  # a cache file that lies
                if isinstance(exc, _DamagedError):
                    damaged = [exc.entry]
                else:
                    damaged = [e for e in entries if e.from_cache]
                    if not damaged:
                        raise
                self._files = {p: e for p, e in self._files.items() if e not in damaged}
                for entry in damaged:  # index those files anew, without their cache
                    self._forget(entry.name)
                return _search(self._refresh(files), query, limit)


def _new_entry(name: str) -> _FileIndex:
    return _FileIndex(name, (0, 0, 0, 0), 0, _digest(b""), b"", array("Q"), array("I"), 0, 0,
                      _EMPTY, {}, None, b"", [])  # fmt: skip


def _postings(entry: _FileIndex, term: str) -> tuple[int, Iterable[int], Iterable[int]]:
    """How many lines of ``entry`` hold ``term``, which, and their codes."""
    parts_lines: list[Iterable[int]] = []
    parts_codes: list[Iterable[int]] = []
    count = 0
    k = entry.base.find(term)
    if k is not None:
        lo, hi = entry.base.offsets[k], entry.base.offsets[k + 1]
        if not lo <= hi <= len(entry.base.lines):  # a cache file that lies
            raise _DamagedError(entry)
        parts_lines.append(entry.base.lines[lo:hi])
        parts_codes.append(entry.base.codes[lo:hi])
        count += hi - lo
    more = entry.extra.get(term)
    if more is not None:
        parts_lines.append(more[0])
        parts_codes.append(more[1])
        count += len(more[0])
    if entry.partial is not None and term in entry.partial:
        index = entry.count - 1
        parts_lines.append((index,))
        parts_codes.append((entry.partial[term] << _TF_SHIFT | entry.lengths[index],))
        count += 1
    if len(parts_lines) == 1:
        return count, parts_lines[0], parts_codes[0]
    return count, itertools.chain(*parts_lines), itertools.chain(*parts_codes)


def _scores(entries: list[_FileIndex], terms: set[str]) -> list[list[float] | None]:
    """Per file, each line's BM25 score (None: no line holds a term), summed term by term in
    the order of ``terms`` as :func:`harness.text_search._bm25` sums them."""
    scores: list[list[float] | None] = [None] * len(entries)
    count = sum(e.nonblank for e in entries)
    if not count or not terms:
        return scores
    average = sum(e.total for e in entries) / count or 1.0
    order = list(terms)  # the order rank_lines adds the terms in
    found = [[_postings(e, t) for t in order] for e in entries]
    idfs = []
    for k in range(len(order)):
        df = sum(per_file[k][0] for per_file in found)
        idfs.append(math.log(1 + (count - df + 0.5) / (df + 0.5)) if df else 0.0)
    tables: list[dict[int, float]] = [{} for _ in order]

    def table(k: int, codes: Iterable[int]) -> dict[int, float]:
        known, idf = tables[k], idfs[k]
        for code in set(codes).difference(known):
            tf, length = code >> _TF_SHIFT, code & _LENGTH_MASK
            norm = tf + K1 * (1 - B + B * length / average)
            known[code] = idf * tf * (K1 + 1) / norm
        return known

    for position, (entry, per_file) in enumerate(zip(entries, found, strict=True)):
        held = [
            (k, _as_array("I", lines), _as_array("Q", codes))
            for k, (n, lines, codes) in enumerate(per_file)
            if n
        ]
        if not held:
            continue
        line_scores = [0.0] * entry.count
        # The first terms that hold the same lines with the same counts are added in one pass
        # (per distinct code, 0.0 + the first + the second ...: the same sums, in the same
        # order, as line by line); the terms after them one by one.
        _, lines, codes = held[0]
        lead = 1
        while lead < len(held) and held[lead][1] == lines and held[lead][2] == codes:
            lead += 1
        merged: dict[int, float] = {}
        for code in set(codes):
            value = 0.0
            for k, _, _ in held[:lead]:
                value += table(k, (code,))[code]
            merged[code] = value
        passes: list[tuple[array[int], array[int], dict[int, float]]] = [(lines, codes, merged)]
        passes.extend((ls, cs, table(k, cs)) for k, ls, cs in held[lead:])
        for lines, codes, values in passes:
            added = map(values.__getitem__, codes)
            if len(lines) == len(line_scores):  # every line holds it: lines are 0..n-1
                line_scores = list(map(operator.add, line_scores, added))
            else:
                try:
                    for index, value in zip(lines, added, strict=True):
                        line_scores[index] += value
                except IndexError:  # a posting past the last line: a cache file that lies
                    raise _DamagedError(entry) from None
        scores[position] = line_scores
    return scores


def _as_array(kind: str, values: Iterable[int]) -> array[int]:
    return values if isinstance(values, array) else array(kind, values)


def _literal_lines(entry: _FileIndex, needle: bytes) -> list[int]:
    """The lines of ``entry`` that contain ``needle`` (lower-cased, UTF-8), in order."""
    found: list[int] = []
    if b"\n" in needle:
        return found  # a line never holds a newline
    text, starts = entry.lowered, entry.starts
    at = text.find(needle)
    while at >= 0:
        index = bisect.bisect_right(starts, at) - 1
        found.append(index)
        # jump to the next line: one line counts once
        next_start = starts[index + 1] if index + 1 < len(starts) else len(text)
        at = text.find(needle, next_start)
    return found


def _search(entries: list[_FileIndex], query: str, limit: int) -> list[SearchHit]:
    needle = query.strip().lower()
    needle_bytes = needle.encode("utf-8", errors="surrogatepass")  # no match in UTF-8 text
    scores = _scores(entries, set(tokenize(query)))
    hits: list[SearchHit] = []
    ranked: list[list[float] | None] = list(scores)
    for position, entry in enumerate(entries):
        literal = _literal_lines(entry, needle_bytes) if needle else []
        if not literal:
            continue
        line_scores = scores[position]
        for index in literal:
            score = line_scores[index] if line_scores is not None else 0.0
            hits.append(SearchHit(entry.name, index + 1, entry.line(index), score, True))
        if line_scores is not None:  # literal lines are not ranked a second time
            kept = ranked[position] = list(line_scores)
            for index in literal:
                kept[index] = 0.0
    wanted = limit - len(hits)
    if wanted > 0:
        hits.extend(_best(entries, ranked, wanted))
    hits.sort(key=lambda h: (not h.literal, -h.score, h.file, h.line))
    literal_count = sum(h.literal for h in hits)
    return hits[: max(limit, literal_count)]


def _best(
    entries: list[_FileIndex], scores: list[list[float] | None], wanted: int
) -> list[SearchHit]:
    """The ``wanted`` best lines with a score above 0, as sorting every such line by (score
    descending, file, line) and cutting would pick them (ties at the cut by file, then line,
    then the files' order)."""
    present = [(p, s) for p, s in enumerate(scores) if s is not None]
    top = heapq.nlargest(wanted, itertools.chain.from_iterable(s for _, s in present))
    cut = top[-1] if len(top) == wanted else 0.0
    chosen: list[tuple[int, int]] = []  # (file position, line index)
    if cut <= 0.0:
        for p, s in present:
            chosen.extend((p, i) for i in itertools.compress(range(len(s)), map((0.0).__lt__, s)))
    else:
        for p, s in present:
            chosen.extend((p, i) for i in itertools.compress(range(len(s)), map(cut.__lt__, s)))
        need = wanted - len(chosen)
        groups: dict[str, list[tuple[int, list[float]]]] = {}
        for p, s in present:
            groups.setdefault(entries[p].name, []).append((p, s))
        for name in sorted(groups):
            if need <= 0:
                break
            ties = [
                (i, p)
                for p, s in groups[name]
                for i in itertools.islice(
                    itertools.compress(range(len(s)), map(cut.__eq__, s)), need
                )
            ]
            ties.sort()  # by line, then the files' order (a stable sort keeps it)
            chosen.extend((p, i) for i, p in ties[:need])
            need -= min(need, len(ties))
    chosen.sort()
    out = []
    for p, i in chosen:
        entry, line_scores = entries[p], scores[p]
        assert line_scores is not None
        out.append(SearchHit(entry.name, i + 1, entry.line(i), line_scores[i], False))
    return out


# --- the cache format ---------------------------------------------------------------------


def _flatten(base: _Base, extra: dict[str, tuple[list[int], list[int]]]) -> _Base:
    if not extra:
        return base
    terms = sorted(set(base.terms).union(extra))
    offsets, lines, codes = array("Q", [0]), array("I"), array("Q")
    for term in terms:
        k = base.find(term)
        if k is not None:
            lo, hi = base.offsets[k], base.offsets[k + 1]
            lines.extend(base.lines[lo:hi])
            codes.extend(base.codes[lo:hi])
        more = extra.get(term)
        if more is not None:
            lines.extend(more[0])
            codes.extend(more[1])
        offsets.append(len(lines))
    return _Base(terms, offsets, lines, codes)


def _encode(entry: _FileIndex, base: _Base) -> bytes:
    """The cache file of ``entry``'s complete lines: a header, the arrays, the terms, the
    lower-cased text, a checksum."""
    terms = "\0".join(base.terms).encode("utf-8")
    complete = entry.complete
    if entry.count == complete:
        lowered = entry.lowered
    else:  # leave the partial line out
        lowered = entry.lowered[: entry.starts[complete] - 1] if complete else b""
    header = _HEADER.pack(
        _FINGERPRINT,
        _digest(entry.name.encode("utf-8")),
        entry.covered,
        entry.digest,
        complete,
        entry.nonblank - entry.partial_counts[0],
        len(base.terms),
        len(base.lines),
        len(terms),
        len(lowered),
    )
    body = b"".join(
        [_MAGIC, header, entry.lengths[:complete].tobytes(), base.offsets.tobytes(),
         base.lines.tobytes(), base.codes.tobytes(), entry.line_starts[:complete].tobytes(),
         array("Q", entry.starts[:complete]).tobytes(), terms, lowered]
    )  # fmt: skip
    return body + _check(body)


def _decode(name: str, blob: bytes, data: bytes) -> _FileIndex | None:
    """The index in ``blob`` when it is intact, ours, for ``name`` and for a prefix of
    ``data``; None otherwise. A file that passes the checksum but lies (only a hand-made
    one can) gives wrong answers, never an error: a posting outside its file is found as a
    query reads it (:class:`_DamagedError`)."""
    view = memoryview(blob)
    if len(blob) < len(_MAGIC) + _HEADER.size + _CHECK or not blob.startswith(_MAGIC):
        return None
    if _check(view[:-_CHECK]) != blob[-_CHECK:]:
        return None  # torn or changed
    fields = _HEADER.unpack_from(blob, len(_MAGIC))
    fingerprint, name_digest, covered, digest, n_lines, nonblank, n_terms, n_post = fields[:8]
    n_blob, n_lowered = fields[8:]
    if fingerprint != _FINGERPRINT or name_digest != _digest(name.encode("utf-8")):
        return None
    if covered > len(data) or (covered and data[covered - 1] != 0x0A):
        return None
    if _digest(memoryview(data)[:covered]) != digest:
        return None  # the file is not (a grown copy of) what was indexed
    at = len(_MAGIC) + _HEADER.size
    sizes = [n_lines * 4, (n_terms + 1) * 8, n_post * 4, n_post * 8, n_lines * 8, n_lines * 8,
             n_blob, n_lowered]  # fmt: skip
    if at + sum(sizes) + _CHECK != len(blob) or data.count(b"\n", 0, covered) != n_lines:
        return None
    parts = []
    for size in sizes:
        parts.append(view[at : at + size])
        at += size
    arrays = [array(kind) for kind in "IQIQQQ"]
    for target, part in zip(arrays, parts, strict=False):
        target.frombytes(part)
    lengths, offsets, lines, codes, line_starts, starts = arrays
    terms = bytes(parts[6]).decode("utf-8").split("\0") if n_terms else []
    if (
        len(terms) != n_terms
        or offsets[0] != 0
        or offsets[-1] != n_post
        or nonblank > n_lines
        or (n_lines and (line_starts[0] != 0 or starts[0] != 0))
    ):
        return None
    return _FileIndex(name, (0, 0, 0, 0), covered, digest, data, line_starts, lengths,
                      nonblank, sum(lengths), _Base(terms, offsets, lines, codes), {}, None,
                      bytes(parts[7]), starts.tolist(), cached_lines=n_lines, complete=n_lines,
                      from_cache=True)  # fmt: skip
