"""``claims.csv``'s ``reason_class``: every ``differs`` row says its main cause in a few words
(a class of :data:`lab.claims.REASON_CLASSES`), and no ``match`` row has one."""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import pytest
from support.paths import ROOT

from lab.claims import REASON_CLASSES, Claim, claims_frame, read_claims, write_claims
from lab.claims.reason_classes import CAP, MODEL, classified, reason_class
from lab.claims.specs import ClaimSpec, Verdict, evaluate

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


def _spec(**causes: object) -> ClaimSpec[bool]:
    return ClaimSpec("X-1", "A claim.", lambda ok: Verdict("yes" if ok else "no"), "yes", **causes)  # type: ignore[arg-type]


def test_the_spec_gives_its_class_to_a_differing_row_only() -> None:
    spec = _spec(reason_class=CAP)
    (differs,) = evaluate("E4", [spec], False, "local/x")
    (matches,) = evaluate("E4", [spec], True, "local/x")
    assert (differs.reason_class, matches.reason_class) == (CAP, "")


def test_a_model_can_have_another_cause_than_the_claim(tmp_path: Path) -> None:
    spec = _spec(reason_class=MODEL, reason_by_model={"small": CAP})
    (claim,) = evaluate("E4", [spec], False, "local/x")
    small, later = (dataclasses.replace(claim, model=m) for m in ("small", "a-later-model"))
    assert reason_class(small) == CAP and reason_class(later) == MODEL
    rows = classified([small, later, *evaluate("E4", [spec], True, "local/x")])
    assert [c.reason_class for c in rows] == [CAP, MODEL, ""]
    write_claims(claims_frame(rows), tmp_path / "claims.csv")
    assert list(read_claims(tmp_path / "claims.csv")["reason_class"]) == [CAP, MODEL, ""]


def test_a_spec_refuses_an_unknown_class() -> None:
    with pytest.raises(ValueError, match="unknown reason class"):
        _spec(reason_class="bad luck")
    with pytest.raises(ValueError, match="unknown reason class"):
        _spec(reason_by_model={"small": "bad luck"})


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
