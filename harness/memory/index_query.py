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

import heapq
import math
import operator
from array import array
from collections.abc import Iterator
from typing import BinaryIO

from harness.memory.index_build import BLOCK_BYTES, TF_SHIFT
from harness.text_search import K1, B

__all__ = ["Ranked", "Tables", "batch_scores", "literal_lines"]

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
    scores = [0.0] * count
    for lines, codes, values in passes:
        added = map(values.__getitem__, codes)
        if len(lines) == count:  # every line holds it: lines are first .. first + count - 1
            scores = list(map(operator.add, scores, added))
            continue
        for index, value in zip(lines, added, strict=True):
            scores[index - first] += value
    return scores


class Ranked:
    """The best ``wanted`` ranked lines seen so far: (-score, file, line, position)."""

    def __init__(self, wanted: int) -> None:
        self.wanted = wanted
        self.kept: list[tuple[float, str, int, int]] = []

    def offer(self, scores: list[float], first: int, name: str, position: int) -> None:
        """A batch's scores (literal lines already set to 0.0)."""
        if self.wanted <= 0:
            return
        best = heapq.nlargest(self.wanted, range(len(scores)), key=scores.__getitem__)
        found = [(-scores[i], name, first + i, position) for i in best if scores[i] > 0.0]
        if found:
            self.kept = sorted(self.kept + found)[: self.wanted]


def _blocks(handle: BinaryIO, size: int) -> Iterator[bytes]:
    """The first ``size`` bytes of ``handle`` in blocks of whole lines (the last may end
    without a newline)."""
    handle.seek(0)
    carry, remaining = b"", size
    while remaining > 0:
        block = handle.read(min(BLOCK_BYTES, remaining))
        if not block:
            break
        remaining -= len(block)
        data = carry + block if carry else block
        cut = data.rfind(b"\n") + 1
        if remaining > 0 and not cut:
            carry = data
            continue
        carry = data[cut:] if remaining > 0 else b""
        yield data[:cut] if remaining > 0 else data
    if carry:
        yield carry


def literal_lines(handle: BinaryIO, size: int, needle: str) -> list[tuple[int, str]]:
    """``(0-based line, text)`` of each line in the first ``size`` bytes of ``handle`` whose
    lower-cased text holds ``needle``."""
    found: list[tuple[int, str]] = []
    if not needle or "\n" in needle:
        return found
    base = 0
    for block in _blocks(handle, size):
        text = block.decode("utf-8", errors="replace")
        lowered = text.lower()
        at = lowered.find(needle)
        if at >= 0:
            lines = text.split("\n")
            line, counted = 0, 0
            while at >= 0:
                line += lowered.count("\n", counted, at)
                found.append((base + line, lines[line]))
                end = lowered.find("\n", at)
                if end < 0:
                    break
                counted = end
                at = lowered.find(needle, end + 1)
        base += block.count(b"\n")
    return found
