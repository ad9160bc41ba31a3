"""X-GATE's piece of the report: what it tests; its page shows its JSON as recorded."""

from __future__ import annotations

from experiments.x_gate.view import XGateView
from lab import Evidence, Page

__all__ = ["PAGE", "X_GATE_ABOUT"]

X_GATE_ABOUT = (
    "ctxlab's identifier-survival gate re-runs E3's and E4's summaries with the gate on and "
    "off and checks which planted facts (code word, order id, number, path) reach the "
    "summary verbatim."
)
"""What the experiment tests (its section of ``index.html`` opens with it)."""

PAGE = Page(
    XGateView,
    None,
    X_GATE_ABOUT,
    judges={
        "x-gate-verbatim": "experiments.x_gate: a planted fact counts only verbatim in the summary"
    },
    evidence=Evidence(
        cassettes=("E3/rounds", "E3/rounds-gate", "E4/compactions", "E4/compactions-gate")
    ),
)
