"""Ranking the same lines again tokenises only the query: the recall ranks the shadowed
originals before every request, and tokenising all of them each time made a request's cost grow
with everything compacted before it (X-BENCH's replay spent 65 % of its CPU there)."""

from __future__ import annotations

import math
import uuid
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import text_search
from harness.text_search import LineIndex, SearchLine, rank_lines


def test_a_second_ranking_of_the_same_lines_tokenises_only_its_query(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    real = text_search.tokenize
    monkeypatch.setattr(text_search, "tokenize", lambda text: calls.append(text) or real(text))
    tag = uuid.uuid4().hex  # texts no earlier test ranked
    lines = [SearchLine("f", n, f"{tag} line {n} about room Birch {n}") for n in range(50)]
    first = rank_lines(lines, "room Birch")
    assert len(calls) == len(lines) + 1
    calls.clear()
    again = rank_lines(lines, "room Birch")
    assert calls == ["room Birch"]
    assert again == first


def test_the_scores_are_bm25s_over_the_lines_given() -> None:
    lines = [SearchLine("f", 0, "alpha beta"), SearchLine("f", 1, "beta gamma gamma")]
    hits = rank_lines(lines, "gamma")
    assert [h.line for h in hits] == [1] and hits[0].score > 0
    assert rank_lines(lines, "delta") == []


def _bm25_reference(texts: list[str], query: str) -> list[float]:
    """BM25 as it was written before the shared-terms shortcut: every doc, every term."""
    docs = [Counter(text_search.tokenize(t)) for t in texts]
    lengths = [sum(d.values()) for d in docs]
    terms = set(text_search.tokenize(query))
    if not docs or not terms:
        return [0.0] * len(docs)
    average = sum(lengths) / len(docs) or 1.0
    frequency = Counter(term for doc in docs for term in terms if doc[term])
    k1, b = text_search.K1, text_search.B
    scores = []
    for doc, length in zip(docs, lengths, strict=True):
        score = 0.0
        for term in terms:
            if doc[term]:
                idf = math.log(1 + (len(docs) - frequency[term] + 0.5) / (frequency[term] + 0.5))
                norm = doc[term] + k1 * (1 - b + b * length / average)
                score += idf * doc[term] * (k1 + 1) / norm
        scores.append(score)
    return scores


TEXT = st.lists(st.sampled_from(["dock", "Birch", "seal", "夜莺", "密码", "SL-12", "the", "x"]))


@settings(max_examples=120, deadline=None)
@given(texts=st.lists(TEXT.map(" ".join), max_size=10), query=TEXT.map(" ".join))
def test_the_scores_are_bit_for_bit_those_of_every_term_on_every_doc(
    texts: list[str], query: str
) -> None:
    """Scoring only the docs that share a term, with each term's idf computed once, gives the
    same floats (the recall's choices, and so X-BENCH's replays, depend on their ties)."""
    lines = [SearchLine("f", n, t) for n, t in enumerate(texts)]
    hits = {h.line: h.score for h in rank_lines(lines, query, limit=len(lines))}
    want = _bm25_reference(texts, query)
    for n, score in enumerate(want):
        assert hits.get(n, 0.0) == score or (score == 0.0 and hits[n] == 0.0)


@pytest.mark.quick_examples(50)  # costly examples: [full] under -m slow
@settings(max_examples=150, deadline=None)
@given(
    sets=st.lists(st.lists(TEXT.map(" ".join), max_size=10), min_size=1, max_size=4),
    queries=st.lists(TEXT.map(" ".join), min_size=1, max_size=3),
    limit=st.integers(1, 12),
)
def test_a_line_index_ranks_as_rank_lines_does(
    sets: list[list[str]], queries: list[str], limit: int
) -> None:
    """The recall's index (texts posted once, only the lines holding a query term scored,
    updated to other lines by what came and went) gives rank_lines's hits, scores bit for bit,
    duplicate texts included."""
    index = LineIndex()
    for texts in sets:
        lines = [SearchLine("f", n, t) for n, t in enumerate(texts)]
        index.update(lines)
        for query in queries:
            assert index.rank(query, limit) == rank_lines(lines, query, limit)


def test_an_update_posts_only_the_texts_that_came() -> None:
    tag = uuid.uuid4().hex
    first = [SearchLine("f", n, f"{tag} line {n} dock") for n in range(20)]
    index = LineIndex(first)
    assert index.posted == 20
    index.update([*first[5:], SearchLine("f", 20, f"{tag} line 20 dock")])
    assert index.posted == 21
    assert [h.line for h in index.rank("line 20")][:1] == [20]
