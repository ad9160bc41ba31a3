"""``claims.csv``'s ``reason_class``: every ``differs`` row says its main cause in a few words
(a class of :data:`lab.claims.REASON_CLASSES`), and no ``match`` row has one."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from support.paths import ROOT

from lab.claims import REASON_CLASSES, Claim, claims_frame, read_claims, write_claims
from lab.claims.reason_classes import BY_CLAIM, BY_SET, classified, reason_class

CLAIMS = ROOT / "reports" / "claims.csv"


def unclassified(path: Path) -> list[str]:
    """The rows of a claims table whose reason class is missing, unknown or misplaced."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    wrong = []
    for row in rows:
        name = f"{row['experiment']} {row['claim_id']} ({row['model']}, {row['status']})"
        reason = row.get("reason_class")
        if row["status"] == "differs" and reason not in REASON_CLASSES:
            wrong.append(f"{name}: reason class {reason!r}")
        if row["status"] == "match" and reason:
            wrong.append(f"{name}: a matching row with reason class {reason!r}")
    return wrong


def test_every_differs_row_of_the_committed_claims_has_a_reason_class() -> None:
    assert unclassified(CLAIMS) == []
    frame = read_claims(CLAIMS)
    assert (frame["status"] == "differs").sum() > 0  # the check has rows to look at


def test_a_differs_row_without_a_reason_class_is_caught(tmp_path: Path) -> None:
    frame = read_claims(CLAIMS)
    first = frame.index[frame["status"] == "differs"][0]
    frame.loc[first, "reason_class"] = ""
    write_claims(frame, tmp_path / "claims.csv")
    assert len(unclassified(tmp_path / "claims.csv")) == 1


def test_every_class_the_table_names_is_a_known_class_of_a_real_claim() -> None:
    frame = read_claims(CLAIMS)
    ids = set(frame["claim_id"])
    assert set(BY_CLAIM) <= ids, sorted(set(BY_CLAIM) - ids)
    assert {claim for claim, _ in BY_SET} <= ids
    assert set(BY_CLAIM.values()) | set(BY_SET.values()) <= set(REASON_CLASSES)


def _claim(claim_id: str, status: str, model: str = "some-model") -> Claim:
    note = "why" if status == "differs" else ""
    return Claim("E4", claim_id, "A claim.", "1", "2", status, "local/x", note, model=model)


def test_a_set_can_have_another_cause_than_the_claim() -> None:
    assert reason_class(_claim("DSH-SUMMARY-EVENT", "differs")) == "recording cap"
    capped = next(iter(BY_SET))
    assert reason_class(_claim(capped[0], "differs", capped[1])) == BY_SET[capped]
    assert reason_class(_claim(capped[0], "differs", "a-later-model")) == BY_CLAIM[capped[0]]
    assert reason_class(_claim("DSH-SUMMARY-EVENT", "match")) == ""
    assert reason_class(_claim("NOT-A-CLAIM", "differs")) == ""


def test_the_experiments_own_class_wins_and_the_column_is_written(tmp_path: Path) -> None:
    own = Claim(
        "E4", "DSH-RANGE", "A claim.", "1", "2", "differs", "local/x", "why", reason_class="model"
    )
    rows = classified([own, _claim("DSH-RANGE", "differs"), _claim("DSH-RANGE", "match")])
    assert [c.reason_class for c in rows] == ["model", "recording cap", ""]
    write_claims(claims_frame(rows), tmp_path / "claims.csv")
    assert list(read_claims(tmp_path / "claims.csv")["reason_class"]) == [
        "model",
        "recording cap",
        "",
    ]


def test_a_claim_refuses_an_unknown_or_misplaced_class() -> None:
    with pytest.raises(ValueError, match="unknown reason class"):
        Claim("E1", "X", "c", "1", "2", "differs", "scripted", "why", reason_class="bad luck")
    with pytest.raises(ValueError, match="only a differing claim"):
        Claim("E1", "X", "c", "1", "1", "match", "scripted", reason_class="model")


def test_an_old_table_without_the_column_reads_with_it_empty(tmp_path: Path) -> None:
    frame = read_claims(CLAIMS).drop(columns="reason_class")
    frame.to_csv(tmp_path / "claims.csv", index=False)
    again = read_claims(tmp_path / "claims.csv")
    assert "reason_class" in again.columns and set(again["reason_class"]) == {""}
