"""E5's report: the claims the article computed but never ran.

:func:`e5_view` reads ``E5.json`` (see ``experiments/e5/``) into an :class:`E5View`;
:func:`e5_section` renders it as the Measurements section of ``E5.md``. This module holds the
cadence grid (trigger × keep); the other checks are in :mod:`.e5_checks`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from experiments.report.markdown import and_list, markdown_table
from experiments.report.per_experiment.e5_checks import (
    Failures,
    FallbackProfile,
    FlushOutcome,
    LargeResult,
    ToolHeavy,
    failures_section,
    fallback_section,
    flush_order_section,
    large_result_section,
    read_failures,
    read_fallback,
    read_flush_outcome,
    read_large_result,
    read_tool_heavy,
    tool_heavy_section,
)
from experiments.report.shape import ShapeError, get, ints, objects

__all__ = ["E5_GRID_CLAIM", "E5View", "GridCell", "e5_section", "e5_view"]

E5_GRID_CLAIM = "E5-CADENCE-GRID"
"""The claim whose note explains the cells of E5's grid where the formula is wrong."""
DISAGREES = "✗"


@dataclass(frozen=True)
class GridCell:
    """One cell of E5's cadence grid: a plain Q&A agent with one trigger and one keep."""

    trigger: int
    keep: int
    first: int | None
    """The round of the first compaction; None when it never compacted."""
    first_formula: int
    """The article's ``ceil((trigger + 1) / 2)``."""
    intervals: tuple[int, ...]
    """Every distinct gap, in rounds, between two compactions, sorted."""
    interval: int | None
    """The gap when there was exactly one; None otherwise."""
    formula: int
    """The article's ``ceil((trigger − keep − 1) / 2)``."""
    compactions: int

    @property
    def agrees(self) -> bool:
        """Whether the measured interval is the formula's (the E5-CADENCE-GRID comparison)."""
        return self.interval == self.formula

    @property
    def measured_text(self) -> str:
        """The measured interval; several gaps joined by commas; ``-`` without any gap."""
        if self.interval is not None:
            return str(self.interval)
        return ",".join(map(str, self.intervals)) or "-"


@dataclass(frozen=True)
class E5View:
    """E5: the claims the article computed but never ran."""

    grid: tuple[GridCell, ...]
    """Sorted by trigger, then keep."""
    tool_heavy: ToolHeavy
    large_result: LargeResult
    failures: Failures
    flush_order: tuple[FlushOutcome, ...]
    fallback: tuple[FallbackProfile, ...]

    @property
    def triggers(self) -> tuple[int, ...]:
        """The grid's triggers, ascending."""
        return tuple(sorted({c.trigger for c in self.grid}))

    @property
    def keeps(self) -> tuple[int, ...]:
        """The grid's keeps, ascending."""
        return tuple(sorted({c.keep for c in self.grid}))

    def cell(self, trigger: int, keep: int) -> GridCell | None:
        """The cell for ``trigger`` and ``keep``; None when it was not run (keep ≥ trigger)."""
        return next((c for c in self.grid if c.trigger == trigger and c.keep == keep), None)

    @property
    def disagreeing(self) -> tuple[GridCell, ...]:
        """The cells whose measured interval is not the formula's."""
        return tuple(c for c in self.grid if not c.agrees)


def _grid_cell(cell: Mapping[str, Any]) -> GridCell:
    return GridCell(
        get(cell, "trigger", int),
        get(cell, "keep", int),
        get(cell, "first", int, optional=True),
        get(cell, "first_formula", int),
        tuple(sorted(ints(cell, "intervals"))),
        get(cell, "interval", int, optional=True),
        get(cell, "formula", int),
        get(cell, "compactions", int),
    )


def e5_view(data: Mapping[str, Any]) -> E5View:
    """Read E5's JSON (see ``experiments/e5/``, ``measure``)."""
    grid = tuple(sorted((_grid_cell(c) for c in objects(data, "grid")), key=_cell_key))
    if not grid:
        raise ShapeError("'grid' holds no cells")
    if len({_cell_key(c) for c in grid}) != len(grid):
        raise ShapeError("'grid' holds a trigger and keep twice")
    flush = get(data, "flush_order", Mapping)
    fallback = get(data, "fallback", Mapping)
    return E5View(
        grid,
        read_tool_heavy(get(data, "tool_heavy", Mapping)),
        read_large_result(get(data, "large_result", Mapping)),
        read_failures(get(data, "failures", Mapping)),
        tuple(read_flush_outcome(str(k), v) for k, v in flush.items()),
        tuple(read_fallback(str(k), v) for k, v in fallback.items()),
    )


def _cell_key(cell: GridCell) -> tuple[int, int]:
    return (cell.trigger, cell.keep)


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
