"""Ranked full-text search over memory lines.

Algorithm: Okapi BM25 (k1 = 1.5, b = 0.75) over lines, written here rather than taken from a
library because the corpus is small (a few files), the ranking must be deterministic, and the
tokenizer must handle Chinese: Latin words and digits are tokens, and every CJK character and
every pair of adjacent CJK characters is a token, so 夜莺 matches without a segmenter. On top of
the ranking, every line that contains the whole query literally (case-insensitively) is always
returned, first: the search finds at least what a literal line match finds.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LineIndex", "SearchHit", "SearchLine", "rank_lines", "tokenize"]

_WORD = re.compile(r"[A-Za-z0-9_]+|[\u3400-\u9fff\uf900-\ufaff]+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
DOC_CACHE = 8_192
"""Distinct texts whose counted terms are kept (:func:`_doc`)."""
K1 = 1.5
B = 0.75


@dataclass(frozen=True)
class SearchLine:
    """One line of a searchable file."""

    file: str
    line: int
    text: str


@dataclass(frozen=True)
class SearchHit:
    """A line that matched, with its score (literal matches score above every ranked one)."""

    file: str
    line: int
    text: str
    score: float
    literal: bool


def tokenize(text: str) -> list[str]:
    """Lower-cased Latin words, CJK characters and adjacent CJK pairs."""
    tokens: list[str] = []
    for word in _WORD.findall(text.lower()):
        if _CJK.match(word):
            tokens.extend(word)
            tokens.extend(word[i : i + 2] for i in range(len(word) - 1))
        else:
            tokens.append(word)
    return tokens


@dataclass(frozen=True)
class _Doc:
    """A text's terms as BM25 reads them: its length and the count of each term."""

    length: int
    counts: Counter[str]
    terms: frozenset[str]
    lowered: str
    """The text lower-cased (a literal match is found in it)."""


@functools.lru_cache(maxsize=DOC_CACHE)
def _doc(text: str) -> _Doc:
    """The terms of ``text``, counted once per distinct text: the recall ranks the same
    shadowed originals before every request, and tokenising them again each time made a
    request's cost grow with everything compacted before it."""
    tokens = tokenize(text)
    counts = Counter(tokens)
    return _Doc(len(tokens), counts, frozenset(counts), text.lower())


def rank_lines(lines: Sequence[SearchLine], query: str, limit: int = 20) -> list[SearchHit]:
    """The best ``limit`` lines for ``query``: literal matches first, then by BM25."""
    docs = [_doc(line.text) for line in lines]
    return _hits(lines, docs, _bm25(docs, tokenize(query)), query, limit)


def _hits(
    lines: Sequence[SearchLine], docs: Sequence[_Doc], scores: list[float], query: str, limit: int
) -> list[SearchHit]:
    needle = query.strip().lower()
    hits = []
    for line, doc, score in zip(lines, docs, scores, strict=True):
        literal = bool(needle) and needle in doc.lowered
        if literal or score > 0:
            hits.append(SearchHit(line.file, line.line, line.text, score, literal))
    hits.sort(key=lambda h: (not h.literal, -h.score, h.file, h.line))
    literal_count = sum(h.literal for h in hits)
    return hits[: max(limit, literal_count)]


class LineIndex:
    """:func:`rank_lines` over the same lines for one query after another: each distinct
    text's terms are posted once, so a query's BM25 reads only the lines that hold one of its
    terms, and :meth:`update` to other lines posts only the texts that came and unposts those
    that went (the recall ranks the shadowed originals before every request; a compaction adds
    a span's). Its hits are :func:`rank_lines`'s, score for score."""

    def __init__(self, lines: Sequence[SearchLine] = ()) -> None:
        self.lines: tuple[SearchLine, ...] = ()
        self._docs: list[_Doc] = []
        self._times: Counter[str] = Counter()
        """How many of the lines hold each text."""
        self._held: dict[str, _Doc] = {}
        self._postings: dict[str, dict[str, int]] = {}
        """Each term's texts, with how often the text holds it."""
        self._spread: dict[str, float] = {}
        """Each held text's BM25 length normalisation at the lines' average length."""
        self.posted = 0
        """How many texts were posted so far (each once while it stays)."""
        self.update(lines)

    def update(self, lines: Sequence[SearchLine]) -> None:
        """Rank ``lines`` from now on."""
        self.lines = tuple(lines)
        self._docs = [_doc(line.text) for line in self.lines]
        times = Counter(line.text for line in self.lines)
        for text in [t for t in self._held if t not in times]:
            doc = self._held.pop(text)
            for term in doc.terms:
                posted = self._postings[term]
                del posted[text]
                if not posted:
                    del self._postings[term]
        for line, doc in zip(self.lines, self._docs, strict=True):
            if line.text not in self._held:
                self._held[line.text] = doc
                self.posted += 1
                for term, held in doc.counts.items():
                    self._postings.setdefault(term, {})[line.text] = held
        self._times = times
        average = sum(doc.length for doc in self._docs) / (len(self._docs) or 1) or 1.0
        self._spread = {t: K1 * (1 - B + B * d.length / average) for t, d in self._held.items()}

    def rank(self, query: str, limit: int = 20) -> list[SearchHit]:
        """The best ``limit`` lines for ``query``, as :func:`rank_lines` gives them."""
        return _hits(self.lines, self._docs, self._scores(tokenize(query)), query, limit)

    def _scores(self, query: list[str]) -> list[float]:
        """:func:`_bm25`'s scores: each line's terms added in the query set's order."""
        count = len(self._docs)
        if not count or not query:
            return [0.0] * count
        distinct = len(self._times) == count
        spread, factor = self._spread, K1 + 1
        by_text: dict[str, float] = {}
        for term in set(query):
            posted = self._postings.get(term)
            if not posted:
                continue
            frequency = len(posted) if distinct else sum(self._times[t] for t in posted)
            idf = math.log(1 + (count - frequency + 0.5) / (frequency + 0.5))
            for text, held in posted.items():  # _bm25's arithmetic, in its order
                by_text[text] = by_text.get(text, 0.0) + idf * held * factor / (held + spread[text])
        return [by_text.get(line.text, 0.0) for line in self.lines]


def _bm25(docs: list[_Doc], query: list[str]) -> list[float]:
    """Each doc's BM25 score; a doc that shares no term with the query is not looked into (its
    score is 0.0), and the terms are added in the query set's order, as they always were."""
    if not docs or not query:
        return [0.0] * len(docs)
    average = sum(doc.length for doc in docs) / len(docs) or 1.0
    terms = set(query)
    shared = [terms.intersection(doc.terms) for doc in docs]
    frequency = Counter(term for found in shared for term in found)
    idf = {
        term: math.log(1 + (len(docs) - frequency[term] + 0.5) / (frequency[term] + 0.5))
        for term in frequency
    }
    scores = []
    for doc, found in zip(docs, shared, strict=True):
        score = 0.0
        if found:
            counts = doc.counts
            for term in terms:
                if term in found:
                    norm = counts[term] + K1 * (1 - B + B * doc.length / average)
                    score += idf[term] * counts[term] * (K1 + 1) / norm
        scores.append(score)
    return scores
