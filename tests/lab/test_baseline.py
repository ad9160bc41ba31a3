"""lab.baseline: reading the claims table by column name, what counts as a change."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab.baseline import (
    baseline_changes,
    claim_change,
    diff_lines,
    is_structural,
    read_baseline,
)
from lab.errors import ExperimentError


def row(claim_id: str = "E9-A", status: str = "match", value: str = "3", **extra: str) -> dict:  # type: ignore[type-arg]
    return {"experiment": "E9", "claim_id": claim_id, "status": status,
            "reproduced_value": value, "note": "", **extra}  # fmt: skip


def test_the_note_decides_structural_whatever_the_kind() -> None:
    assert is_structural(row(note="structural: decided by the harness"))
    assert is_structural(row(note="judged on the log; structural: decided by the harness"))
    assert not is_structural(row(note="model output as recorded"))
    assert not is_structural(row(kind="article", note="measured"))
    assert is_structural(row(kind="article", note="structural: says the note"))


def test_changes_of_status_and_of_structural_values_only() -> None:
    assert claim_change(row(), row()) is None
    assert claim_change(row(), row(value="4")) is None  # not structural: the value may move
    status = claim_change(row(), row(status="differs", value="4"))
    assert status is not None
    assert status.line() == "E9-A: status changed: baseline match ('3'), now differs ('4')"
    value = claim_change(row(note="structural: x"), row(note="structural: x", value="4"))
    assert value is not None and value.what == "value"
    assert value.line() == "E9-A: structural value changed: baseline match ('3'), now match ('4')"


def test_baseline_changes_lists_changed_new_and_gone_claims_of_what_ran() -> None:
    baseline = [row("E9-A"), row("E9-B"), {**row("E8-X"), "experiment": "E8"}]
    fresh = [row("E9-A", status="differs"), row("E9-C")]
    changes = baseline_changes(baseline, fresh, ["E9"])  # E8 did not run: not compared
    assert [(c.claim_id, c.what) for c in changes] == [
        ("E9-A", "status"),
        ("E9-C", "new"),
        ("E9-B", "gone"),
    ]
    lines = diff_lines(changes, Path("reports/claims.csv"))
    assert lines[0] == "3 claims changed against reports/claims.csv:"
    assert lines[2:] == [f"- {c.line()}" for c in changes]
    assert diff_lines([], Path("b.csv")) == ["No claim changed against b.csv."]


def test_columns_are_read_by_name_and_extra_ones_kept(tmp_path: Path) -> None:
    path = tmp_path / "claims.csv"
    path.write_text("status,kind,claim_id,experiment\nmatch,structural,E9-A,E9\n", encoding="utf-8")
    assert read_baseline(path) == [
        {"status": "match", "kind": "structural", "claim_id": "E9-A", "experiment": "E9"}
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("experiment,claim_id\nE9,E9-A\n", "no status column"),
        ("experiment,claim_id,status\nE9,E9-A,match\nE9,E9-A,match\n", "E9-A more than once"),
    ],
)
def test_unusable_tables_are_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "claims.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ExperimentError, match=message):
        read_baseline(path)
