"""Ranking the same lines again tokenises only the query: the recall ranks the shadowed
originals before every request, and tokenising all of them each time made a request's cost grow
with everything compacted before it (X-BENCH's replay spent 65 % of its CPU there)."""

from __future__ import annotations

import uuid

import pytest

from harness import text_search
from harness.text_search import SearchLine, rank_lines


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
