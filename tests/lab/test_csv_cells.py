"""CSV cells a spreadsheet would run as a formula get a ``'`` in front; nothing else changes."""

from __future__ import annotations

import pandas as pd
import pytest

from lab.csv_cells import safe_cell, safe_text_columns


@pytest.mark.parametrize("text", ["=1+1", "+1", "-x", "@SUM(A1)", "\tx", "\rx"])
def test_a_text_that_starts_a_formula_is_marked_as_text(text: str) -> None:
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("value", ["zh-2k-s01", "", "a=b", "'=x", -0.5, -3, 0, None, True])
def test_every_other_cell_is_left_as_it_was(value: object) -> None:
    assert safe_cell(value) is value


def test_numeric_columns_stay_numbers_and_ordinary_text_is_untouched() -> None:
    frame = pd.DataFrame(
        {"id": ["a", "=x", "-y"], "net": [-1, 2, -3], "share": [-0.5, 0.25, float("nan")]}
    )
    ordinary = frame.iloc[:1]
    assert safe_text_columns(ordinary).to_csv(index=False) == ordinary.to_csv(index=False)
    safe = safe_text_columns(frame)
    assert safe["id"].tolist() == ["a", "'=x", "'-y"]
    assert safe["net"].tolist() == [-1, 2, -3] and safe["net"].dtype == frame["net"].dtype
    assert safe.to_csv(index=False).splitlines()[1:] == ["a,-1,-0.5", "'=x,2,0.25", "'-y,-3,"]
    assert frame["id"].tolist() == ["a", "=x", "-y"]  # the caller's frame is not changed
