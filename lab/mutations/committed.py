"""A committed ``mutations.csv`` read back as a :class:`~lab.mutations.matrix.Matrix`, so that
the catalogue's checks can run on it when its recorded inputs are the tree's
(:mod:`lab.mutations.inputs`) and only a sample of its columns is computed again."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from harness import ConfigError
from lab.mutations.matrix import MATRIX_FILE, Matrix, Outcome
from lab.mutations.mutation import Mutation

__all__ = ["committed_matrix"]


def _after(cell: str, before: list[str]) -> list[str] | None:
    """An outcome that gives ``cell`` against ``before``; None for an abort (no row)."""
    status, value, kind, experiment = before
    if cell == "abort":
        return None
    if cell == "flip":
        status = "match" if status == "differs" else "differs"
    elif cell == "value":
        value = f"{value} (changed)"
    elif cell:
        raise ConfigError(f"mutations.csv holds an unknown cell {cell!r}")
    return [status, value, kind, experiment]


def committed_matrix(folder: Path, mutations: Sequence[Mutation], baseline: Outcome) -> Matrix:
    """The matrix ``folder/mutations.csv`` records, over ``baseline`` (an unmutated run of this
    tree): each cell becomes an outcome that gives that cell again. A claim of the run the file
    does not hold aborts under every mutation, so a stale file shows in its rows."""
    with (Path(folder) / MATRIX_FILE).open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    outcomes: dict[str, Outcome] = {m.name: {} for m in mutations}
    for row in rows:
        claim = f"{row['claim_id']}@{row['model']}"
        before = baseline.get(claim)
        if before is None:
            continue  # a row the run does not produce: the rows written again leave it out
        for mutation in mutations:
            after = _after(row.get(mutation.name) or "", before)
            if after is not None:
                outcomes[mutation.name][claim] = after
    return Matrix(baseline, outcomes, tuple(mutations))
