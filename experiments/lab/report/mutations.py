"""The mutation matrix's section of ``index.html``, from ``mutations.csv`` (written by
``ctxlab mutations``, :mod:`experiments.lab.mutations.matrix`).

Self-contained: :func:`read_matrix` reads the file (None when the folder has none) and
:func:`mutations_section` renders one ``<section id="mutations">``: what each mutation broke,
which claims it flipped and which experiments it stopped, then the rows no mutation flips,
each with the reason it is a guard (or that it is not covered yet).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from html import escape
from pathlib import Path

__all__ = ["CELL_MEANINGS", "FIXED_COLUMNS", "mutations_section", "read_matrix"]

FIXED_COLUMNS = ("experiment", "claim_id", "model", "kind", "status")
TRAILING_COLUMNS = ("flipped_by", "guard", "uncovered")
CELL_MEANINGS = {
    "flip": "its status changed",
    "abort": "its experiment raised before judging it",
    "value": "its value changed but not its status",
}


def read_matrix(folder: Path) -> list[dict[str, str]] | None:
    """The rows of ``folder/mutations.csv``, or None when there is none."""
    path = Path(folder) / "mutations.csv"
    if not path.is_file():
        return None
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _mutations(rows: Sequence[dict[str, str]]) -> list[str]:
    return [c for c in rows[0] if c not in FIXED_COLUMNS + TRAILING_COLUMNS] if rows else []


def _key(row: dict[str, str]) -> str:
    return row["claim_id"] if row["model"] == "scripted" else f"{row['claim_id']}@{row['model']}"


def _mutation_row(name: str, rows: Sequence[dict[str, str]]) -> str:
    flipped = [_key(r) for r in rows if r[name] == "flip"]
    stopped = sorted({r["experiment"] for r in rows if r[name] == "abort"})
    return (
        f"<tr><td><code>{_e(name)}</code></td><td>{len(flipped)}</td>"
        f"<td>{_e(', '.join(flipped) or '—')}</td><td>{_e(', '.join(stopped) or '—')}</td></tr>"
    )


def _why(row: dict[str, str]) -> str:
    if row["guard"]:
        return row["guard"]
    return "not flipped by any mutation yet: " + (row.get("uncovered") or "no reason given")


def mutations_section(rows: Sequence[dict[str, str]]) -> str:
    """The ``<section id="mutations">`` of the page."""
    names = _mutations(rows)
    seed_rows = [r for r in rows if r["kind"] in ("article", "article-computed")]
    unflipped = [r for r in seed_rows if r["flipped_by"] == "0"]
    guards = [r for r in unflipped if r["guard"]]
    ours = [r for r in rows if r["kind"] == "ctxlab"]
    ours_unflipped = [r for r in ours if r["flipped_by"] == "0"]
    ours_listed = [r for r in ours_unflipped if r["status"] != "differs"]
    table = "\n".join(_mutation_row(name, rows) for name in names)
    listed = "\n".join(
        f"<li><code>{_e(_key(r))}</code> ({_e(r['kind'])}): {_e(_why(r))}</li>"
        for r in (*unflipped, *ours_listed)
    )
    return (
        '<section id="mutations"><h2>Mutations</h2>\n'
        f"<p>Every claim judged again under each of {len(names)} mutations of the harness (one "
        "behaviour broken on purpose, the recorded answers replayed in recorded order; this is "
        "mutation testing, <strong>not a reproduction</strong>): "
        f"{len(names)} × {len(rows)} cells in <code>mutations.csv</code>. "
        f"{len(seed_rows) - len(unflipped)} of the {len(seed_rows)} seed rows (article and "
        f"article-computed) are flipped by at least one mutation; {len(guards)} more are "
        "guards (no harness change can move them). "
        f"{len(ours) - len(ours_unflipped)} of ctxlab's own {len(ours)} rows are flipped; "
        f"{len(ours_unflipped) - len(ours_listed)} more already differ (breaking the harness "
        f"cannot make them fail) and {len(ours_listed)} are listed below.</p>\n"
        '<div class="scroll"><table><thead><tr><th>mutation</th><th>flips</th>'
        "<th>claims flipped</th><th>experiments stopped</th></tr></thead><tbody>\n"
        f"{table}\n</tbody></table></div>\n"
        "<p>Seed rows no mutation flips, and rows of ours none flips that do not differ:</p>\n"
        f"<ul>\n{listed}\n</ul>\n</section>"
    )
