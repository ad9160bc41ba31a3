"""memory_search's queries over :class:`~harness.memory.index_store.FileIndex` entries: the
same hits, scores and order as :func:`harness.text_search.rank_lines`."""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
import operator
from array import array
from collections.abc import Iterable

from harness.memory.index_store import LENGTH_MASK, TF_SHIFT, FileIndex
from harness.text_search import K1, B, SearchHit, tokenize

__all__ = ["DamagedError", "search_entries"]


class DamagedError(Exception):
    """A cached index whose postings point outside its file (found as a query reads them)."""

    def __init__(self, entry: FileIndex) -> None:
        self.entry = entry


def _postings(entry: FileIndex, term: str) -> tuple[int, Iterable[int], Iterable[int]]:
    """How many lines of ``entry`` hold ``term``, which, and their codes."""
    parts_lines: list[Iterable[int]] = []
    parts_codes: list[Iterable[int]] = []
    count = 0
    k = entry.base.find(term)
    if k is not None:
        lo, hi = entry.base.offsets[k], entry.base.offsets[k + 1]
        if not lo <= hi <= len(entry.base.lines):  # a cache file that lies
            raise DamagedError(entry)
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
        parts_codes.append((entry.partial[term] << TF_SHIFT | entry.lengths[index],))
        count += 1
    if len(parts_lines) == 1:
        return count, parts_lines[0], parts_codes[0]
    return count, itertools.chain(*parts_lines), itertools.chain(*parts_codes)


def _scores(entries: list[FileIndex], terms: set[str]) -> list[list[float] | None]:
    """Per file, each line's BM25 score (None: no line holds a term), summed term by term in
    the order of ``terms`` as :func:`harness.text_search._bm25` sums them."""
    scores: list[list[float] | None] = [None] * len(entries)
    count = sum(e.nonblank for e in entries)
    if not count or not terms:
        return scores
    order = list(terms)  # the order rank_lines adds the terms in
    found = [[_postings(e, t) for t in order] for e in entries]
    frequencies = [sum(per_file[k][0] for per_file in found) for k in range(len(order))]
    tables = _Tables(frequencies, count, sum(e.total for e in entries) / count or 1.0)
    for position, (entry, per_file) in enumerate(zip(entries, found, strict=True)):
        held = [
            (k, _as_array("I", lines), _as_array("Q", codes))
            for k, (n, lines, codes) in enumerate(per_file)
            if n
        ]
        if held:
            scores[position] = _file_scores(entry, held, tables)
    return scores


class _Tables:
    """Per query term, the score of each (count, line length) code, computed once."""

    def __init__(self, frequencies: list[int], count: int, average: float) -> None:
        self.idfs = [math.log(1 + (count - df + 0.5) / (df + 0.5)) for df in frequencies]
        self.average = average
        self.known: list[dict[int, float]] = [{} for _ in frequencies]

    def get(self, k: int, codes: Iterable[int]) -> dict[int, float]:
        known, idf, average = self.known[k], self.idfs[k], self.average
        for code in set(codes).difference(known):
            tf, length = code >> TF_SHIFT, code & LENGTH_MASK
            norm = tf + K1 * (1 - B + B * length / average)
            known[code] = idf * tf * (K1 + 1) / norm
        return known


def _file_scores(
    entry: FileIndex, held: list[tuple[int, array[int], array[int]]], tables: _Tables
) -> list[float]:
    """The scores of ``entry``'s lines from the postings ``held`` of the query terms it holds.
    The first terms that hold the same lines with the same counts are added in one pass (per
    distinct code, 0.0 + the first + the second ...: the same sums, in the same order, as line
    by line); the terms after them one by one."""
    _, lines, codes = held[0]
    lead = 1
    while lead < len(held) and held[lead][1] == lines and held[lead][2] == codes:
        lead += 1
    merged: dict[int, float] = {}
    for code in set(codes):
        value = 0.0
        for k, _, _ in held[:lead]:
            value += tables.get(k, (code,))[code]
        merged[code] = value
    passes = [(lines, codes, merged)]
    passes.extend((ls, cs, tables.get(k, cs)) for k, ls, cs in held[lead:])
    line_scores = [0.0] * entry.count
    for lines, codes, values in passes:
        added = map(values.__getitem__, codes)
        if len(lines) == len(line_scores):  # every line holds it: lines are 0..n-1
            line_scores = list(map(operator.add, line_scores, added))
            continue
        try:
            for index, value in zip(lines, added, strict=True):
                line_scores[index] += value
        except IndexError:  # a posting past the last line: a cache file that lies
            raise DamagedError(entry) from None
    return line_scores


def _as_array(kind: str, values: Iterable[int]) -> array[int]:
    return values if isinstance(values, array) else array(kind, values)


def _literal_lines(entry: FileIndex, needle: bytes) -> list[int]:
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


def search_entries(entries: list[FileIndex], query: str, limit: int) -> list[SearchHit]:
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
    entries: list[FileIndex], scores: list[list[float] | None], wanted: int
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
