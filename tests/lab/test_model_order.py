"""Models side by side come in one order everywhere: the article's model first, then by size.

``claims.md``'s per-model columns came in the order the claims met them (1.5B, deepseek-flash,
0.5B after a DeepSeek recording).
"""

from __future__ import annotations

import pandas as pd

from lab.report.tables import model_order, recorded_models, side_by_side

SMALL = "qwen2.5-coder-0.5b-instruct-q4_k_m"
LARGER = "qwen2.5-coder-1.5b-instruct-q4_k_m"


def test_the_article_model_first_then_by_size_then_by_name() -> None:
    met = [LARGER, "deepseek-flash", "unsized-model", SMALL, "qwen2.5-coder-14b"]
    assert sorted(met, key=model_order) == [
        "deepseek-flash", SMALL, LARGER, "qwen2.5-coder-14b", "unsized-model"
    ]  # fmt: skip


def test_claims_side_by_side_and_the_verdict_columns_follow_it() -> None:
    rows = [
        {"claim_id": "E3-A", "claim": "c", "model": model, "reproduced_value": model,
         "status": "match", "reason_class": "", "note": ""}
        for model in (LARGER, "deepseek-flash", SMALL)
    ]  # fmt: skip
    claims = pd.DataFrame(rows)
    assert recorded_models(claims) == ["deepseek-flash", SMALL, LARGER]
    wide = side_by_side(claims, ["claim_id", "claim", "reproduced_value", "status"])
    values = [c for c in wide.columns if c.startswith("reproduced_value")]
    assert values == [f"reproduced_value ({m})" for m in ("deepseek-flash", SMALL, LARGER)]
