"""E5's report: the claims the article computed but never ran.

``PAGE.read`` reads ``E5.json`` back into the :class:`~experiments.e5.view.E5View` that
``experiments/e5/`` wrote it from;
:func:`e5_section` renders it as the Measurements section of ``E5.md``. This module holds the
cadence grid (trigger × keep); the other checks are in :mod:`.page_checks`.
"""

from __future__ import annotations

import pandas as pd

from experiments.e5.page_checks import (
    failures_section,
    fallback_section,
    flush_order_section,
    large_result_section,
    tool_heavy_section,
)
from experiments.e5.plot import e5_plot
from experiments.e5.view import E5View, GridCell
from lab import Page, and_list, markdown_table

__all__ = ["E5_ABOUT", "E5_GRID_CLAIM", "PAGE", "E5View", "GridCell", "e5_section"]

E5_ABOUT = (
    "What the seeds computed or state but never ran, run here with scripted models: the "
    "compaction cadence grid, tool offloading, consolidation freshness and the event-log lock."
)
"""What the experiment tests (its section of ``index.html`` opens with it)."""

E5_GRID_CLAIM = "E5-CADENCE-GRID"
"""The claim whose note explains the cells of E5's grid where the formula is wrong."""
DISAGREES = "✗"


def _grid_text(cell: GridCell | None) -> str:
    if cell is None:
        return ""
    return f"{cell.measured_text} / {cell.formula}" + ("" if cell.agrees else f" {DISAGREES}")


def _cells_list(cells: tuple[GridCell, ...]) -> str:
    return and_list([f"trigger {c.trigger} / keep {c.keep}" for c in cells])


def _grid_claim_note(claims: pd.DataFrame) -> str:
    notes = claims.loc[claims["claim_id"] == E5_GRID_CLAIM, "note"]
    return str(notes.iloc[0]).strip().rstrip(".") if len(notes) else ""


def _grid_sentence(view: E5View, claims: pd.DataFrame) -> str:
    cells, wrong = len(view.grid), view.disagreeing
    if not wrong:
        return f"All {cells} cells agree: the formula gives every measured interval.\n"
    text = (
        f"**{cells - len(wrong)} of {cells} cells agree.** The {len(wrong)} marked {DISAGREES} "
        f"are {_cells_list(wrong)}."
    )
    note = _grid_claim_note(claims)
    if note:
        text += f" As the {E5_GRID_CLAIM} claim notes: {note}."
    return text + "\n"


def _first_section(view: E5View) -> str:
    measured: dict[str, str] = {"": "first compaction, measured"}
    formula: dict[str, str] = {"": "ceil((trigger + 1) / 2)"}
    wrong = 0
    for trigger in view.triggers:
        cells = [c for c in view.grid if c.trigger == trigger]
        firsts = sorted({"-" if c.first is None else str(c.first) for c in cells}, key=_number)
        formulas = sorted({str(c.first_formula) for c in cells}, key=_number)
        mismatched = [c for c in cells if c.first != c.first_formula]
        wrong += len(mismatched)
        measured[str(trigger)] = ",".join(firsts) + (f" {DISAGREES}" if mismatched else "")
        formula[str(trigger)] = ",".join(formulas)
    frame = pd.DataFrame([measured, formula]).rename(columns={"": "trigger"})
    keep_free = all(len({c.first for c in view.grid if c.trigger == t}) == 1 for t in view.triggers)
    total = len(view.grid)
    lead = (
        f"The first compaction came in round ceil((trigger + 1) / 2) in all {total} cells"
        if not wrong
        else f"The first compaction came in round ceil((trigger + 1) / 2) in {total - wrong} of "
        f"{total} cells ({DISAGREES} marks a trigger where some keep differs)"
    )
    lead += ", whatever the keep." if keep_free else "."
    return f"{lead}\n\n" + markdown_table(frame)


def _number(text: str) -> tuple[int, str]:
    return (int(text), "") if text.isdigit() else (1_000_000, text)


def _cadence_section(view: E5View, claims: pd.DataFrame) -> str:
    rows = [
        {"trigger": t, **{f"keep {k}": _grid_text(view.cell(t, k)) for k in view.keeps}}
        for t in view.triggers
    ]
    return "\n".join(
        [
            "### Compaction cadence: trigger × keep\n",
            "Rounds between two compactions of a plain Q&A agent, each cell "
            "`measured / formula`, the formula being the article's "
            f"ceil((trigger − keep − 1) / 2); {DISAGREES} marks a cell where they disagree, "
            "a blank cell was not run (keep ≥ trigger). The heat map is "
            "[E5_cadence.png](E5_cadence.png).\n",
            markdown_table(pd.DataFrame(rows)),
            _grid_sentence(view, claims),
            "### First compaction\n",
            _first_section(view),
        ]
    )


def e5_section(view: E5View, claims: pd.DataFrame) -> str:
    """The cadence grid, then each of the claims the article computed but never ran.

    ``claims`` are E5's own: the note of :data:`E5_GRID_CLAIM` explains the grid.
    """
    return "\n".join(
        [
            _cadence_section(view, claims),
            tool_heavy_section(view.tool_heavy),
            large_result_section(view.large_result),
            failures_section(view.failures),
            flush_order_section(view.flush_order),
            fallback_section(view.fallback),
        ]
    )


PAGE = Page(E5View, e5_section, E5_ABOUT, plot=e5_plot)
