"""memory_search's scoring: the hits, scores and order of :func:`harness.text_search.rank_lines`
from postings read a batch at a time.

- **BM25**: per query term, the score of each distinct (count, line length) code is computed
  once (:class:`Tables`) and added to the lines holding it; terms that hold the same lines with
  the same codes are added in one pass; the sums run term by term in the order ``rank_lines``
  adds them, so every score is the same float.
- **Ranked lines**: each batch gives its best ``wanted`` lines (``heapq.nlargest``, ties by
  line) and the candidates kept across batches are cut to ``wanted`` by (score descending,
  file, line, the files' order) after each batch: what sorting every line would pick, in a
  batch's memory.
- **Literal lines** (:func:`literal_lines`): every line holding the whole query,
  case-insensitively, read from the file a block at a time (lower-casing the joined lines of a
  block is lower-casing each: the one rule that looks at neighbours, a final sigma, stops at a
  newline).
"""

from __future__ import annotations

import collections
import functools
import heapq
import itertools
import math
import operator
import re
from array import array
from collections.abc import Iterator
from typing import AnyStr, BinaryIO

from harness.memory.index_build import TF_SHIFT, line_blocks
from harness.text_search import K1, B

__all__ = ["Ranked", "Tables", "batch_scores", "literal_lines", "needle_terms"]

LENGTH_MASK = (1 << TF_SHIFT) - 1


class Tables:
    """Per query term, the score of each (count, line length) code, computed once."""

    def __init__(self, frequencies: list[int], count: int, average: float) -> None:
        self.idfs = [math.log(1 + (count - df + 0.5) / (df + 0.5)) for df in frequencies]
        self.average = average
        self.known: list[dict[int, float]] = [{} for _ in frequencies]

    def get(self, k: int, codes: array[int] | tuple[int, ...]) -> dict[int, float]:
        known, idf, average = self.known[k], self.idfs[k], self.average
        for code in set(codes).difference(known):
            tf, length = code >> TF_SHIFT, code & LENGTH_MASK
            norm = tf + K1 * (1 - B + B * length / average)
            known[code] = idf * tf * (K1 + 1) / norm
        return known


def batch_scores(
    first: int, count: int, held: list[tuple[int, array[int], array[int]]], tables: Tables
) -> list[float]:
    """The scores of lines ``first .. first + count - 1`` from the postings ``held`` (query
    term's position, lines, codes; in the order of the query's terms). The first terms that
    hold the same lines with the same codes are added in one pass (per distinct code, 0.0 +
    the first + the second ...: the same sums, in the same order, as line by line); the terms
    after them one by one."""
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
    scores: list[float] = []
    for lines, codes, values in passes:
        added = map(values.__getitem__, codes)
        if len(lines) == count:  # every line holds it: lines are first .. first + count - 1
            dense = list(added)
        else:  # scattered in C: 0.0 where the term is not (x + 0.0 is x)
            dense = [0.0] * count
            places = lines if not first else map(operator.sub, lines, itertools.repeat(first))
            collections.deque(map(dense.__setitem__, places, added), maxlen=0)
        scores = list(map(operator.add, scores, dense)) if scores else dense
    return scores


class Ranked:
    """The best ``wanted`` ranked lines seen so far: (-score, file, line, position)."""

    def __init__(self, wanted: int) -> None:
        self.wanted = wanted
        self.kept: list[tuple[float, str, int, int]] = []

    def offer(self, scores: list[float], first: int, name: str, position: int) -> None:
        """A batch's scores (literal lines already set to 0.0): its best ``wanted`` lines
        above 0.0, ties by line, are kept if they beat the ones kept."""
        wanted = self.wanted
        if wanted <= 0 or not scores:
            return
        best = max(scores)
        if best <= 0.0 or (len(self.kept) == wanted and -best > self.kept[-1][0]):
            return  # nothing here beats the worst line kept
        top = heapq.nlargest(wanted, scores)
        cut = top[-1] if len(top) == wanted else 0.0
        indices = range(len(scores))
        if cut <= 0.0:
            picked = list(itertools.compress(indices, map((0.0).__lt__, scores)))
        else:
            picked = list(itertools.compress(indices, map(cut.__lt__, scores)))
            ties = itertools.compress(indices, map(cut.__eq__, scores))
            picked.extend(itertools.islice(ties, wanted - len(picked)))
        found = [(-scores[i], name, first + i, position) for i in picked]
        self.kept = sorted(self.kept + found)[:wanted]


@functools.cache
def _cased() -> tuple[frozenset[int], frozenset[bytes], bytes]:
    """What marks, in UTF-8, a non-ASCII character that ``str.lower`` changes: the lead bytes
    of such 2- and 4-byte characters (every 4-byte lead, to keep it short), the first two bytes
    of such 3-byte ones, and the bytes to delete to keep only those leads."""
    leads, prefixes = set(range(0xF0, 0xF5)), set()
    for code in range(0x80, 0x10000):
        char = chr(code)
        if not 0xD800 <= code < 0xE000 and char.lower() != char:
            encoded = char.encode("utf-8")
            if len(encoded) == 2:
                leads.add(encoded[0])
            else:
                prefixes.add(encoded[:2])
    keep = leads | {prefix[0] for prefix in prefixes}
    delete = bytes(b for b in range(256) if b not in keep)
    return frozenset(leads), frozenset(prefixes), delete


def _lowers_as_ascii(block: bytes) -> bool:
    """Whether lower-casing ``block``'s text only lower-cases its ASCII letters (no
    character in it that ``str.lower`` changes is outside ASCII): then ``bytes.lower`` finds
    what ``str.lower`` finds, in a tenth of the time."""
    leads, prefixes, delete = _cased()
    present = set(block.translate(None, delete))
    if not present.isdisjoint(leads):
        return False
    for lead in present:  # the lead of a 3-byte character: look at the byte after each
        mark = bytes([lead])
        at = block.find(mark)
        while at >= 0:
            if block[at : at + 2] in prefixes:
                return False
            at = block.find(mark, at + 1)
    return True


def literal_lines(handle: BinaryIO, size: int, needle: str) -> list[tuple[int, str]]:
    """``(0-based line, text)`` of each line in the first ``size`` bytes of ``handle`` whose
    lower-cased text holds ``needle``."""
    found: list[tuple[int, str]] = []
    try:
        wanted = needle.encode("utf-8")
    except UnicodeEncodeError:
        return found  # a lone surrogate: no decoded text holds one
    if not needle or "\n" in needle:
        return found
    base = 0
    for block in line_blocks(handle, 0, size, tail=True):
        if _lowers_as_ascii(block):
            found.extend(_matches(block, block.lower(), wanted, base))
        else:
            text = block.decode("utf-8", errors="replace")
            found.extend(_matches(text, text.lower(), needle, base))
        base += block.count(b"\n")
    return found


def _matches(text: AnyStr, lowered: AnyStr, needle: AnyStr, base: int) -> Iterator[tuple[int, str]]:
    """The lines of ``text`` (a block; ``lowered``: lowered, with the same lines) whose
    lowered text holds ``needle``, numbered from ``base``."""
    newline = "\n" if isinstance(text, str) else b"\n"
    at = lowered.find(needle)
    if at < 0:
        return
    lines = text.split(newline)
    line, counted = 0, 0
    while at >= 0:
        line += lowered.count(newline, counted, at)
        found = lines[line]
        yield base + line, found if isinstance(found, str) else found.decode("utf-8", "replace")
        end = lowered.find(newline, at)
        if end < 0:
            return
        counted = end
        at = lowered.find(needle, end + 1)


_NEEDLE_CJK = re.compile("[\u3400-\u9fff\uf900-\ufaff]")  # as harness.text_search's
_NEEDLE_WORD = re.compile("[a-z0-9_]+")


def needle_terms(needle: str) -> list[str]:
    """Terms every line holding ``needle`` (lower-cased) literally holds as tokens: each CJK
    character in it (a CJK character of a lower-cased line is always a token), and each run
    of ASCII letters, digits and ``_`` with a character of the needle on both sides (in the
    line it is bounded by the same characters, so it is a whole token; a run at the needle's
    edge may be part of a longer one)."""
    found = dict.fromkeys(_NEEDLE_CJK.findall(needle))
    for match in _NEEDLE_WORD.finditer(needle):
        if match.start() > 0 and match.end() < len(needle):
            found[match.group()] = None
    return list(found)
