"""The verdict line says "for both models" only when every claim was judged on both."""

from __future__ import annotations

import pandas as pd

from lab.report.verdicts import verdicts

SMALL, LARGE = "qwen0.5b", "qwen1.5b"


def _claims(rows: list[tuple[str, str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"experiment": e, "claim_id": c, "model": m, "status": s, "reason_class": "model"}
            for e, c, m, s in rows
        ]
    )


def test_both_models_when_every_claim_has_both() -> None:
    claims = _claims([("E3", "A", SMALL, "match"), ("E3", "A", LARGE, "match"),
                      ("E3", "B", SMALL, "differs"), ("E3", "B", LARGE, "differs")])  # fmt: skip
    (verdict,) = verdicts(claims, {}, ["E3"])
    assert verdict.sentence() == (
        "1 of 2 claims match for both models and 1 differs for both models; cause: model (1)."
    )


def test_no_model_qualifier_when_claims_are_scripted_or_on_one_model() -> None:
    claims = _claims([("X-BENCH", "FULL", "scripted", "match"),
                      ("X-BENCH", "WINS", SMALL, "differs"), ("X-BENCH", "ADDS", SMALL, "match"),
                      ("X-BENCH", "WINS", LARGE, "differs")])  # fmt: skip
    (verdict,) = verdicts(claims, {}, ["X-BENCH"])
    assert verdict.sentence() == "2 of 3 claims match and 1 differs; cause: model (1)."
