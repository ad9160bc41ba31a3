"""The single-line terms of a batch (``harness.memory.index_singles``): every term is found
with its line and count, no other term is, a term that is a prefix or suffix of another is
told apart, and a damaged row is a ValueError, never a wrong answer."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.memory.index_singles import Singles, split_single

TERMS = st.text(alphabet="ab上海港9_", min_size=1, max_size=4)


@given(st.dictionaries(TERMS, st.tuples(st.integers(0, 2**32 - 1), st.integers(1, 9))), TERMS)
def test_every_single_is_found_with_its_line_and_count(
    held: dict[str, tuple[int, int]], other: str
) -> None:
    singles = Singles.of((term, *held[term]) for term in sorted(held))
    for term, (line, count) in held.items():
        assert singles.holds(term) and singles.find(term) == (line, count)
    if other not in held:
        assert not singles.holds(other) and singles.find(other) is None
    assert singles.entries() == [(term, *held[term]) for term in sorted(held)]
    assert (singles.counts == b"") == all(count == 1 for _, count in held.values())


def test_postings_split_into_rows_and_singles() -> None:
    rows, singles = split_single([("a", [1, 2], None), ("ab", [3], [2]), ("b", [4], None)])
    assert rows == [("a", [1, 2], None)]
    assert singles.find("ab") == (3, 2) and singles.find("b") == (4, 1)
    assert singles.find("a") is None  # held by two lines: a row, not a single


def test_a_damaged_row_is_refused() -> None:
    singles = Singles.of([("a", 1, 1), ("b", 2, 3)])
    short = Singles(singles.terms, array("I", [1]).tobytes(), singles.counts)
    with pytest.raises(ValueError):
        short.find("b")
    with pytest.raises(ValueError):
        short.entries()
