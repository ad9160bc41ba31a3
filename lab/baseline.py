"""The committed claims table as a regression baseline: what changed, claim by claim.

``reports/claims.csv`` is the baseline. A reproduced claim is judged against its row:

- the same status (``match`` → ``match``, ``differs`` → ``differs``) is no change;
- another status is a change;
- for a *structural* claim (decided by the harness, whatever the model says), another
  reproduced value is a change too, even when the status is the same.

Rows are read by column name, so the table may gain columns (a ``kind`` column, say) without
this module changing. A claim is one row per recorded model: its key is ``<claim id>@<model>``
(a claim id, ``@`` and the model's name), or the bare claim id for a scripted claim
and in a table without a ``model`` column (:func:`claim_key`). A claim is structural when its
``kind`` says so, or, in a table without that column, when its note starts with ``structural``.

Used by the pytest plugin (:mod:`lab.pytest_plugin`, one test per row) and by
``ctxlab run --check``.
"""

from __future__ import annotations

import csv
import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lab.claims import Claim
from lab.errors import ExperimentError

__all__ = [
    "ClaimChange",
    "baseline_changes",
    "claim_change",
    "claim_key",
    "claim_row",
    "diff_lines",
    "is_structural",
    "read_baseline",
    "shown",
]

Row = Mapping[str, str]
REQUIRED = ("experiment", "claim_id", "status")


def read_baseline(path: Path) -> list[dict[str, str]]:
    """The rows of a claims table, in file order; raises ExperimentError when unusable."""
    path = Path(path)
    if not path.is_file():
        raise ExperimentError(f"No claims baseline at {path}; run `ctxlab run` to write one.")
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
            if missing:
                columns = ", ".join(missing)
                raise ExperimentError(f"{path} is not a claims table (no {columns} column).")
            rows = [{k: v or "" for k, v in row.items() if k is not None} for row in reader]
    except (UnicodeDecodeError, csv.Error) as exc:  # UTF-16, a field past csv's 128 KiB limit
        raise ExperimentError(
            f"{path} cannot be read as a claims table ({exc}); it must be UTF-8 CSV as "
            "`ctxlab run` writes it: restore it with `git checkout reports/claims.csv` or run "
            "`ctxlab run` to write it again."
        ) from None
    keys = Counter(claim_key(row) for row in rows)
    duplicates = sorted(key for key, count in keys.items() if count > 1)
    if duplicates:
        raise ExperimentError(f"{path} lists claim {', '.join(duplicates)} more than once.")
    return rows


def claim_key(row: Row) -> str:
    """A row's key in the table: ``<claim id>@<model>``; the bare claim id for a scripted claim
    or a row without a model."""
    model = row.get("model", "").strip()
    return row["claim_id"] if model in ("", "scripted") else f"{row['claim_id']}@{model}"


def claim_row(claim: Claim) -> dict[str, str]:
    """A reproduced claim as a row of the table (every field of the record, as text)."""
    return {key: str(value) for key, value in dataclasses.asdict(claim).items()}


def is_structural(row: Row) -> bool:
    """A claim decided by the harness, whatever the model says: its note says ``structural``
    (``kind`` says whether a seed states the value, not who decides it)."""
    note = row.get("note", "").strip().lower()
    return note.startswith("structural") or "; structural:" in note


@dataclass(frozen=True)
class ClaimChange:
    """How one claim moved away from its baseline row."""

    claim_id: str
    baseline: str
    """The baseline status and value, as shown (``match ('3')``), or ``absent``."""
    now: str
    """The reproduced status and value, or ``absent``."""
    what: str
    """``status``, ``value``, ``new`` or ``gone``."""

    def line(self) -> str:
        """One line naming the claim, the baseline and the new value."""
        if self.what == "new":
            return f"{self.claim_id}: not in the baseline, now {self.now}"
        if self.what == "gone":
            return f"{self.claim_id}: baseline {self.baseline}, no longer produced"
        label = "status changed" if self.what == "status" else "structural value changed"
        return f"{self.claim_id}: {label}: baseline {self.baseline}, now {self.now}"


def shown(row: Row) -> str:
    """A row's status and reproduced value, as change lines show them: ``match ('3')``."""
    return f"{row['status']} ({row.get('reproduced_value', '')!r})"


def claim_change(baseline: Row, reproduced: Row) -> ClaimChange | None:
    """The change of one claim against its baseline row, or None when it held."""
    claim_id = claim_key(baseline)
    if baseline["status"] != reproduced["status"]:
        return ClaimChange(claim_id, shown(baseline), shown(reproduced), "status")
    if (is_structural(baseline) or is_structural(reproduced)) and baseline.get(
        "reproduced_value", ""
    ) != reproduced.get("reproduced_value", ""):
        return ClaimChange(claim_id, shown(baseline), shown(reproduced), "value")
    return None


def baseline_changes(
    baseline: Sequence[Row], reproduced: Iterable[Row], experiments: Iterable[str]
) -> list[ClaimChange]:
    """Every change of the claims of ``experiments`` (the ones that ran) against the baseline:
    changed rows in baseline order, then claims the baseline lacks, then rows no run produced."""
    ran = set(experiments)
    fresh = {claim_key(row): row for row in reproduced}
    old = {claim_key(row): row for row in baseline if row["experiment"] in ran}
    changes = [
        change
        for claim_id, row in old.items()
        if claim_id in fresh and (change := claim_change(row, fresh[claim_id]))
    ]
    changes += [
        ClaimChange(i, "absent", shown(row), "new") for i, row in fresh.items() if i not in old
    ]
    changes += [
        ClaimChange(i, shown(row), "absent", "gone") for i, row in old.items() if i not in fresh
    ]
    return changes


def diff_lines(changes: Sequence[ClaimChange], baseline_path: Path) -> list[str]:
    """The per-claim diff as Markdown lines (a pull request body can be exactly this)."""
    if not changes:
        return [f"No claim changed against {baseline_path}."]
    count = f"{len(changes)} claim{'s' if len(changes) != 1 else ''}"
    return [f"{count} changed against {baseline_path}:", ""] + [
        f"- {change.line()}" for change in changes
    ]
