"""The committed reports read back, for scenario tests of an experiment's claims: its view from
``reports/<name>.json`` and its rows from ``reports/claims.csv``, and a claim judged again on a
view with one planted value."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable
from typing import TypeVar

from lab.claims import Claim
from lab.views import from_data
from support.paths import ROOT

__all__ = ["REPORTS", "committed_rows", "committed_view", "judged", "rows_of"]

REPORTS = ROOT / "reports"
V = TypeVar("V")


def committed_view(view_type: type[V], name: str) -> V:
    """``reports/<name>.json`` read into ``view_type``."""
    return from_data(view_type, json.loads((REPORTS / f"{name}.json").read_text(encoding="utf-8")))


def committed_rows(experiment: str, model: str) -> list[tuple[str, str, str]]:
    """``(claim_id, status, reproduced_value)`` of the committed claims.csv rows of one model's
    run of ``experiment``, in the file's order."""
    with (REPORTS / "claims.csv").open(encoding="utf-8", newline="") as handle:
        return [
            (row["claim_id"], row["status"], row["reproduced_value"])
            for row in csv.DictReader(handle)
            if row["experiment"] == experiment and row["model"] == model
        ]


def rows_of(claims: Iterable[Claim]) -> list[tuple[str, str, str]]:
    return [(c.claim_id, c.status, c.reproduced_value) for c in claims]


def judged(claims: Callable[[V], tuple[Claim, ...]], view: V, claim_id: str) -> tuple[str, str]:
    """``(status, reproduced_value)`` of ``claim_id`` judged on ``view``."""
    (claim,) = [c for c in claims(view) if c.claim_id == claim_id]
    return claim.status, claim.reproduced_value
