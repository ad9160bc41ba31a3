"""``mutations.html``: the mutation matrix of ``mutations.csv`` (written by ``ctxlab
mutations``, :mod:`lab.mutations.matrix`) on a page of its own beside
``index.html``, which links to it from its top.

:func:`read_matrix` reads the file (None when the folder has none) and :func:`mutations_page`
renders the page: what each mutation broke (the claims it flipped, grouped by model so a claim
id is never glued to a model name, and the experiments it stopped), then the rows no mutation
flips, each with the reason it is a guard (or that it is not covered yet). The page is one
narrow column of wrapping id chips, so a phone reads it without scrolling sideways.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lab.report.templating import ENVIRONMENT

__all__ = ["CELL_MEANINGS", "FIXED_COLUMNS", "PAGE", "mutations_page", "read_matrix"]

PAGE = "mutations.html"
"""The page's file name, beside ``index.html``."""
FIXED_COLUMNS = ("experiment", "claim_id", "model", "kind", "status")
TRAILING_COLUMNS = ("flipped_by", "guard", "uncovered")
CELL_MEANINGS = {
    "flip": "its status changed",
    "abort": "its experiment raised before judging it",
    "value": "its value changed but not its status",
}

_ENVIRONMENT = ENVIRONMENT


def read_matrix(folder: Path) -> list[dict[str, str]] | None:
    """The rows of ``folder/mutations.csv``, or None when there is none."""
    path = Path(folder) / "mutations.csv"
    if not path.is_file():
        return None
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _mutations(rows: Sequence[dict[str, str]]) -> list[str]:
    return [c for c in rows[0] if c not in FIXED_COLUMNS + TRAILING_COLUMNS] if rows else []


@dataclass(frozen=True)
class MutationEntry:
    """One mutation: how many rows it flipped, their claim ids per model, what it stopped."""

    name: str
    flips: int
    flipped: tuple[tuple[str, tuple[str, ...]], ...]
    stopped: tuple[str, ...]


@dataclass(frozen=True)
class Unflipped:
    claim_id: str
    kind: str
    model: str
    why: str


def _entry(name: str, rows: Sequence[dict[str, str]]) -> MutationEntry:
    flipped = [r for r in rows if r[name] == "flip"]
    by_model: dict[str, list[str]] = {}
    for row in flipped:
        by_model.setdefault(row["model"], []).append(row["claim_id"])
    stopped = tuple(sorted({r["experiment"] for r in rows if r[name] == "abort"}))
    return MutationEntry(
        name, len(flipped), tuple((m, tuple(ids)) for m, ids in by_model.items()), stopped
    )


def _why(row: dict[str, str]) -> str:
    if row["guard"]:
        return row["guard"]
    return "not flipped by any mutation yet: " + (row.get("uncovered") or "no reason given")


def mutations_page(
    rows: Sequence[dict[str, str]], title: str, evidence: Callable[[str], str]
) -> str:
    """The whole ``mutations.html``; ``evidence`` maps a claim id to its evidence page's
    address relative to the page."""
    names = _mutations(rows)
    seed_rows = [r for r in rows if r["kind"] in ("article", "article-computed")]
    unflipped = [r for r in seed_rows if r["flipped_by"] == "0"]
    guards = [r for r in unflipped if r["guard"]]
    ours = [r for r in rows if r["kind"] == "ctxlab"]
    ours_unflipped = [r for r in ours if r["flipped_by"] == "0"]
    ours_listed = [r for r in ours_unflipped if r["status"] != "differs"]
    context = {
        "title": title,
        "names": names,
        "row_count": len(rows),
        "seed_rows": len(seed_rows),
        "seed_flipped": len(seed_rows) - len(unflipped),
        "guards": len(guards),
        "ours": len(ours),
        "ours_flipped": len(ours) - len(ours_unflipped),
        "ours_differ": len(ours_unflipped) - len(ours_listed),
        "ours_listed": len(ours_listed),
        "meanings": CELL_MEANINGS,
        "mutations": [_entry(name, rows) for name in names],
        "unflipped": [
            Unflipped(r["claim_id"], r["kind"], r["model"], _why(r))
            for r in (*unflipped, *ours_listed)
        ],
        "evidence": evidence,
    }
    return _ENVIRONMENT.get_template("mutations.html.j2").render(context)
