"""CSV cells a spreadsheet opens as text, never as a formula (OWASP's "CSV injection").

Excel, LibreOffice and Google Sheets run a cell whose text starts with ``=``, ``+``, ``-`` or
``@`` (and, in some, a tab or a carriage return) as a formula: ``=HYPERLINK(...)`` as a
conversation id becomes a live link, worse ones run commands. The CSVs ``ctxlab bench`` writes
hold the user's own text (conversation ids, sizes, fact bands, the model's name), so their text
cells go through :func:`safe_cell`, which puts a ``'`` before such a text (the spreadsheets'
own "this is text" mark) and leaves every other cell as it was. Numbers are never text here:
``-0.5`` in a numeric column stays a number.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FORMULA_STARTS", "safe_cell", "safe_text_columns"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula."""


def safe_cell(value: Any) -> Any:
    """``value`` with a ``'`` in front when it is a text a spreadsheet would run; any other
    value (a number, None, an ordinary text) unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def safe_text_columns(frame: Any) -> Any:
    """A copy of the pandas ``frame`` with :func:`safe_cell` applied to its text columns (those
    of object or string dtype); numeric and boolean columns are left as they are."""
    import pandas as pd

    safe = frame.copy()
    for column in safe.columns:
        series = safe[column]
        if series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
            safe[column] = series.map(safe_cell)
    return safe
