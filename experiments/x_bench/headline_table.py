"""A headline's rows as a table (X-BENCH's page: the tune split's headline and the held-out
split's)."""

from __future__ import annotations

import pandas as pd

from experiments.x_bench.equal_budget import NEVER_COMPACTED
from experiments.x_bench.headline import HeadlineRow

__all__ = ["headline_table", "share_cell"]


def share_cell(share: float, low: float, high: float) -> str:
    """A share with its interval: ``82% [77%, 86%]``."""
    return f"{share:.0%} [{low:.0%}, {high:.0%}]"


def headline_table(rows: list[HeadlineRow], ours: str = "ctxlab") -> pd.DataFrame:
    """One row per condition, with the conversations it was measured on (a set recorded in
    part has fewer); the differences are ``ours`` minus each, paired on the conversations both
    have."""
    return pd.DataFrame(
        [
            {
                "condition": r.condition
                + (
                    f" ({NEVER_COMPACTED} on {r.never_compacted}: left out)"
                    if r.never_compacted
                    else ""
                ),
                "conversations": r.conversations,
                "survival [95 % CI]": share_cell(r.survival, r.low, r.high),
                f"{ours} minus this [95 % CI]": "—"
                if r.difference is None
                else f"{r.difference[0]:+.0%} [{r.difference[1]:+.0%}, {r.difference[2]:+.0%}]",
                "carried tokens (mean per conversation)": r.carried_tokens,
                "final context tokens (mean)": r.final_tokens,
                "probe answers correct": "—" if r.correct is None else f"{r.correct:.0%}",
                "invented identifiers": r.invented,
            }
            for r in rows
        ]
    )
