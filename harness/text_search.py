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
import heapq
import itertools
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["LineIndex", "SearchHit", "SearchLine", "anchors", "rank_lines", "tokenize"]

_WORD = re.compile(r"[A-Za-z0-9_]+|[\u3400-\u9fff\uf900-\ufaff]+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
DOC_CACHE = 8_192
"""Distinct texts whose counted terms are kept (:func:`_doc`)."""
K1 = 1.5
B = 0.75
COMMON = 32
"""A term held by more texts than this is common: :meth:`LineIndex.ranked` scores the texts that
hold only common terms once per shape (length and counts of those terms), not once per text."""
SHARED_KEPT = 8
"""Sets of common terms whose texts a :class:`LineIndex` keeps by shape (then it starts over)."""


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


def anchors(needle: str) -> set[str]:
    """The terms every text that holds ``needle`` (already lower-cased) literally must hold:
    every CJK character and adjacent pair of it, and each Latin word with a non-word character
    of ``needle`` on both sides (a word at an edge may be part of a longer one in the text)."""
    found: set[str] = set()
    for match in _WORD.finditer(needle):
        word = match.group()
        if _CJK.match(word):
            found.update(word)
            found.update(word[i : i + 2] for i in range(len(word) - 1))
        elif match.start() > 0 and match.end() < len(needle):
            found.add(word)
    return found


_Shape = tuple[int, frozenset[tuple[str, int]]]
"""A text's length and how often it holds each of some terms: its BM25 score on them."""


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

    def __init__(self, lines: Sequence[SearchLine] = (), common: int = COMMON) -> None:
        self.common = common
        """Above how many texts a term is common (:meth:`ranked`)."""
        self.lines: tuple[SearchLine, ...] = ()
        self._docs: list[_Doc] = []
        self._times: Counter[str] = Counter()
        """How many of the lines hold each text."""
        self._where: dict[str, int] = {}
        """Each text's first line (its index in :attr:`lines`)."""
        self._held: dict[str, _Doc] = {}
        self._postings: dict[str, dict[str, int]] = {}
        """Each term's texts, with how often the text holds it."""
        self._length = 0
        """The lines' length in terms, all together."""
        self._ordered = True
        """Whether the lines come in (file, line) order (:meth:`extend` keeps the shapes)."""
        self._average = 1.0
        """The lines' average length in terms (BM25's length normalisation)."""
        self._by_common: dict[frozenset[str], dict[_Shape, list[str]]] = {}
        """:meth:`_shapes`'s answers since the last :meth:`update`."""
        self.posted = 0
        """How many texts were posted so far (each once while it stays)."""
        self.scored = 0
        """How many texts (or shapes of texts) :meth:`ranked` scored or grouped so far."""
        self.checked = 0
        """How many texts :meth:`ranked` looked for its query in literally so far."""
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
        self._where = {}
        for n, line in enumerate(self.lines):
            self._where.setdefault(line.text, n)
        self._by_common.clear()
        self._ordered = _in_order(self.lines)
        self._length = sum(doc.length for doc in self._docs)
        self._average = self._length / (len(self._docs) or 1) or 1.0

    def extend(self, lines: Sequence[SearchLine]) -> None:
        """Rank :attr:`lines` and then ``lines`` from now on, as :meth:`update` would: only the
        new lines are read (a compaction's recall adds the span's texts after the others), and
        the texts kept by shape gain the new texts that hold their terms, in line order."""
        added = tuple(lines)
        docs = [_doc(line.text) for line in added]
        posted = []
        for n, (line, doc) in enumerate(zip(added, docs, strict=True), start=len(self.lines)):
            self._times[line.text] += 1
            if line.text not in self._held:
                self._held[line.text] = doc
                self._where[line.text] = n
                posted.append((line.text, doc))
                for term, held in doc.counts.items():
                    self._postings.setdefault(term, {})[line.text] = held
        self.posted += len(posted)
        self.lines += added
        self._docs += docs
        self._length += sum(doc.length for doc in docs)
        self._average = self._length / (len(self._docs) or 1) or 1.0
        self._ordered = self._ordered and _in_order(self.lines[len(self.lines) - len(added) - 1 :])
        if not self._ordered:
            self._by_common.clear()
        for common, shapes in self._by_common.items():  # the new texts come last in line order
            for text, doc in posted:
                if common & doc.terms:
                    self.scored += 1
                    shapes.setdefault(_shape(doc, common), []).append(text)

    def work(self) -> tuple[int, int]:
        """:attr:`scored` and :attr:`checked`."""
        return self.scored, self.checked

    def rank(self, query: str, limit: int = 20) -> list[SearchHit]:
        """The best ``limit`` lines for ``query``, as :func:`rank_lines` gives them."""
        return _hits(self.lines, self._docs, self._scores(tokenize(query)), query, limit)

    def ranked(self, query: str) -> Iterator[SearchHit]:
        """Every hit of :meth:`rank` (``limit`` = all lines), in its order, found as it is read:
        the literal matches through the postings of the terms they must hold (:func:`anchors`),
        then the texts holding a term at most :attr:`common` texts hold, scored for this query,
        merged with the texts holding only common terms, scored once per shape
        (:meth:`_shared`). Each score is :meth:`rank`'s, computed the same way, so the order is
        the same, ties included."""
        if len(self._times) != len(self.lines):  # a text on two lines: the plain ranking
            yield from self.rank(query, limit=len(self.lines))
            return
        terms = [term for term in set(tokenize(query)) if term in self._postings]
        idf = {term: self._idf(len(self._postings[term])) for term in terms}
        literal = self._literal(query.strip().lower())
        yield from self._hits_of(literal, terms, idf, literal=True)
        common = tuple(term for term in terms if len(self._postings[term]) > self.common)
        rare = {t for term in terms if term not in common for t in self._postings[term]}
        skip = rare | literal
        shared = (hit for hit in self._shared(common, idf) if hit.text not in skip)
        own = self._hits_of(rare - literal, terms, idf, literal=False)
        merged = heapq.merge(own, shared, key=self._key)
        yield from (hit for hit in merged if hit.score > 0)

    def _shared(self, common: tuple[str, ...], idf: dict[str, float]) -> Iterator[SearchHit]:
        """The texts holding any of ``common`` (terms in the query set's order), scored on those
        terms alone, in order: a text that holds no other query term scores that. Texts of one
        shape (:meth:`_shapes`) score the same, so each shape is scored once, in this query's
        order of the terms, and its texts come in line order."""
        shapes = self._shapes(frozenset(common))
        runs = [
            self._run(texts, _score(length, dict(counts), common, idf, self._average))
            for (length, counts), texts in shapes.items()
        ]
        self.scored += len(runs)
        return heapq.merge(*runs, key=self._key)

    def _run(self, texts: list[str], score: float) -> Iterator[SearchHit]:
        for text in texts:
            line = self.lines[self._where[text]]
            yield SearchHit(line.file, line.line, text, score, False)

    def _shapes(self, common: frozenset[str]) -> dict[_Shape, list[str]]:
        """The texts holding any of ``common``, by shape: the text's length and how often it
        holds each of ``common`` (what its score on them depends on), each shape's texts in
        line order; kept for these terms until :meth:`update`."""
        known = self._by_common.get(common)
        if known is None:
            if len(self._by_common) >= SHARED_KEPT:
                self._by_common.clear()
            texts = {t for term in common for t in self._postings[term]}
            self.scored += len(texts)  # each read once, to group it
            known = {}
            for text in sorted(texts, key=self._order):
                known.setdefault(_shape(self._held[text], common), []).append(text)
            self._by_common[common] = known
        return known

    def _idf(self, frequency: int) -> float:
        count = len(self.lines)
        return math.log(1 + (count - frequency + 0.5) / (frequency + 0.5))

    def _literal(self, needle: str) -> set[str]:
        """The texts that hold ``needle`` literally, looked for only in those holding every
        term such a text must hold (every text when ``needle`` has no such term)."""
        if not needle:
            return set()
        must = [self._postings.get(term, {}) for term in anchors(needle)]
        texts: Collection[str] = min(must, key=len) if must else self._held
        if not texts:
            return set()
        self.checked += len(texts)
        return {text for text in texts if needle in self._held[text].lowered}

    def _hits_of(
        self, texts: Collection[str], terms: list[str], idf: dict[str, float], literal: bool
    ) -> Iterator[SearchHit]:
        """``texts`` as hits, in :func:`_hits`'s order (each scored as :meth:`_scores` does),
        each made as it is read: all are scored and ordered, and the recall reads the first
        few (it made 90K hits in X-BENCH's replay and read 35K)."""
        keyed = []
        for text in texts:
            doc = self._held[text]
            score = _score(doc.length, doc.counts, terms, idf, self._average)
            keyed.append((-score, *self._order(text), text, score))
        self.scored += len(keyed)
        keyed.sort()  # :meth:`_key`'s order: ``where`` differs between any two texts
        return (SearchHit(file, n, text, score, literal) for _, file, n, _, text, score in keyed)

    def _key(self, hit: SearchHit) -> tuple[float, str, int, int]:
        """:func:`_hits`'s order within the literal or the other hits (a stable sort)."""
        return -hit.score, hit.file, hit.line, self._where[hit.text]

    def _order(self, text: str) -> tuple[str, int, int]:
        """:meth:`_key` of a text among texts of one score."""
        where = self._where[text]
        line = self.lines[where]
        return line.file, line.line, where

    def _scores(self, query: list[str]) -> list[float]:
        """:func:`_bm25`'s scores: each line's terms added in the query set's order."""
        count = len(self._docs)
        if not count or not query:
            return [0.0] * count
        distinct = len(self._times) == count
        average = self._average
        by_text: dict[str, float] = {}
        for term in set(query):
            posted = self._postings.get(term)
            if not posted:
                continue
            frequency = len(posted) if distinct else sum(self._times[t] for t in posted)
            idf = math.log(1 + (count - frequency + 0.5) / (frequency + 0.5))
            for text, held in posted.items():  # _bm25's arithmetic, in its order
                share = _term_score(idf, held, self._held[text].length, average)
                by_text[text] = by_text.get(text, 0.0) + share
        return [by_text.get(line.text, 0.0) for line in self.lines]


def _shape(doc: _Doc, common: frozenset[str]) -> _Shape:
    """What a text's score on ``common`` depends on: its length and how often it holds each."""
    return doc.length, frozenset((term, doc.counts[term]) for term in common & doc.terms)


def _in_order(lines: Sequence[SearchLine]) -> bool:
    """Whether ``lines`` come in strictly increasing (file, line) order."""
    keys = [(line.file, line.line) for line in lines]
    return all(a < b for a, b in itertools.pairwise(keys))


def _term_score(idf: float, held: int, length: int, average: float) -> float:
    """One term's BM25 share in a text of ``length`` terms that holds it ``held`` times (every
    scorer here adds these in the same arithmetic, so their scores agree to the bit)."""
    return idf * held * (K1 + 1) / (held + K1 * (1 - B + B * length / average))


def _score(length: int, counts: Mapping[str, int], terms: Iterable[str], idf: Mapping[str, float],
           average: float) -> float:  # fmt: skip
    """A text's BM25 score on ``terms``, added in their order."""
    score = 0.0
    for term in terms:
        held = counts.get(term, 0)
        if held:
            score = score + _term_score(idf[term], held, length, average)
    return score


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
            for term in terms:
                if term in found:
                    score += _term_score(idf[term], doc.counts[term], doc.length, average)
        scores.append(score)
    return scores
