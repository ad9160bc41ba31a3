"""Tests of ``LineIndex.ranked``: the recall's search, bounded per query. It returns exactly what
``rank_lines`` returns over the same lines (hits, scores, order, ties), however the common terms
are pruned; and the texts it scores or checks literally stay bounded as the lines grow."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import text_search
from harness.text_search import LineIndex, SearchLine, anchors, rank_lines

WORDS = ["booking", "上海港", "dock", "BK-7", "seal", "7", "x", "密码", "the", "ok!", "Q1:", "\n"]
TEXT = st.lists(st.sampled_from(WORDS), min_size=0, max_size=8).map(" ".join)


def _lines(texts: list[str]) -> list[SearchLine]:
    return [SearchLine("shadowed", n, text) for n, text in enumerate(texts)]


def _query(texts: list[str], data: st.DataObject) -> str:
    """A query of the vocabulary, or a piece of a text (a literal match, its edges anywhere)."""
    if texts and data.draw(st.booleans()):
        text = data.draw(st.sampled_from(texts))
        start = data.draw(st.integers(0, len(text)))
        return text[start : data.draw(st.integers(start, len(text)))]
    return data.draw(TEXT)


@pytest.mark.quick_examples(75)  # costly examples: [full] under -m slow
@settings(max_examples=300, deadline=None)
@given(
    batches=st.lists(st.lists(TEXT, max_size=30), min_size=1, max_size=3),
    common=st.integers(0, 6),
    data=st.data(),
)
def test_ranked_is_rank_lines_hit_for_hit(
    batches: list[list[str]], common: int, data: st.DataObject
) -> None:
    """Any pruning threshold (0: every term common, so every text is pruned first), lines that
    change between queries, literal queries cut anywhere: the same hits in the same order."""
    index = LineIndex(common=common)
    for batch in batches:
        texts = list(dict.fromkeys(batch))  # the recall's candidates are distinct texts
        index.update(_lines(texts))
        for _ in range(3):
            query = _query(texts, data)
            want = rank_lines(_lines(texts), query, limit=len(texts))
            assert list(index.ranked(query)) == want
            taken = data.draw(st.integers(0, len(want)))
            assert list(itertools.islice(index.ranked(query), taken)) == want[:taken]


@settings(max_examples=100, deadline=None)
@given(texts=st.lists(TEXT, max_size=12), data=st.data())
def test_lines_holding_one_text_twice_rank_as_rank_lines(
    texts: list[str], data: st.DataObject
) -> None:
    lines = _lines([*texts, *texts])
    query = _query(texts, data)
    assert list(LineIndex(lines, common=1).ranked(query)) == rank_lines(
        lines, query, limit=len(lines)
    )


@settings(max_examples=200, deadline=None)
@given(text=TEXT, data=st.data())
def test_a_text_holding_a_needle_holds_its_anchors(text: str, data: st.DataObject) -> None:
    from harness.text_search import tokenize

    lowered = text.lower()
    start = data.draw(st.integers(0, len(lowered)))
    needle = lowered[start : data.draw(st.integers(start, len(lowered)))]
    assert anchors(needle) <= set(tokenize(text))


def test_an_edge_word_is_no_anchor() -> None:
    """``book`` is in ``booking``: a word at the needle's edge may be part of a longer one."""
    assert anchors("book x") == set()
    assert anchors("a book x") == {"book"}
    assert anchors("上海") == {"上", "海", "上海"}


def _session(turns: int) -> list[str]:
    return [f"question {n}: 上海港 booking BK-{n}" for n in range(turns)]


def _work(turns: int) -> tuple[int, int]:
    """Texts scored and texts checked literally by one recall-like read (the best three), after
    another question with the same common terms."""
    index = LineIndex(_lines(_session(turns)))
    list(itertools.islice(index.ranked("question 3: 上海港 booking BK-3"), 3))
    before = index.scored, index.checked
    hits = list(itertools.islice(index.ranked("question 7: 上海港 booking BK-7"), 3))
    assert hits[0].text == "question 7: 上海港 booking BK-7" and hits[0].literal
    return index.scored - before[0], index.checked - before[1]


def test_the_work_of_a_query_does_not_grow_with_the_lines() -> None:
    """Common terms (``question``, ``上海港``, ``booking``, ``bk``: in every line) made each
    query score every line and check every line literally: the literal check now reads the
    texts holding its rarest anchor (``7``), and the texts holding only common terms are scored
    once for those terms, not once per query."""
    early, late = _work(50), _work(2_000)
    assert late == early
    assert late[0] <= 5 and late[1] <= 5


def test_a_query_of_common_terms_only_still_finds_the_best() -> None:
    """No rare term: the reader gets past the pruned texts, and they are all scored."""
    texts = _session(100)
    index = LineIndex(_lines(texts))
    assert list(index.ranked("上海港 booking")) == rank_lines(_lines(texts), "上海港 booking", 100)


def test_a_hit_is_made_when_it_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text holding a rare term is scored and ordered, but a hit is made only when the
    reader gets to it (the recall reads the first few)."""
    made: list[str] = []

    class Counted(text_search.SearchHit):
        def __init__(self, file: str, line: int, text: str, score: float, literal: bool) -> None:
            made.append(text)
            super().__init__(file, line, text, score, literal)

    monkeypatch.setattr(text_search, "SearchHit", Counted)
    texts = [f"dock {n} seal" + " x" * n for n in range(20)]  # both terms rare: 20 texts
    index = LineIndex(_lines(texts))
    first = list(itertools.islice(index.ranked("seal dock"), 2))
    assert [h.text for h in first] == texts[:2]  # the shortest score best
    assert len(made) <= 4 and index.scored >= 20
