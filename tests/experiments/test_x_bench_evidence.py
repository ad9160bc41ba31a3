"""X-BENCH's evidence pages show the runs a claim was judged on: a held-out claim's page shows
the held-out split's runs of the conditions it compares, never the tune split's (before, it
listed every tune condition of each model, and with two recorded models the page passed its
size budget)."""

from __future__ import annotations

from typing import Any

from experiments.x_bench.conditions import CANDIDATE
from experiments.x_bench.evidence import facts_by_condition


def _run(conversation: str, condition: str, model: str) -> dict[str, Any]:
    return {
        "conversation": conversation,
        "condition": condition,
        "model": model,
        "survived": ["a"],
        "lost": ["b"],
        "invented": [],
        "compactions": 1,
        "final_tokens": 10,
    }


DATA = {
    "conditions": [{"name": CANDIDATE, "title": "candidate"}],
    "runs": [_run("tools-en-2k-s01", c, "m") for c in ("ctxlab", "reference", "masking")],
    "heldout": [
        *(_run("heldout-chat-en-2k-s01", c, "m") for c in (CANDIDATE, "reference", "truncation")),
        _run("heldout-chat-en-2k-s01", "ctxlab+quotes", "m"),
        _run("heldout-chat-en-2k-s01", "ctxlab", "m"),
        _run("heldout-chat-en-2k-s01", "ctxlab-gate", "none"),
        _run("heldout-chat-en-2k-s01", "truncation", "none"),
    ],
}


def test_a_heldout_claim_shows_the_heldout_runs_of_its_conditions() -> None:
    profile = facts_by_condition(DATA, "X-BENCH-HELDOUT-PROFILE", "m")
    assert [c.condition for c in profile] == [CANDIDATE, "reference", "truncation"]
    assert all(r.conversation.startswith("heldout-") for c in profile for r in c.rows)
    assert profile[0].rows[0].cassette == (
        f"cassettes/X-BENCH/m/heldout-chat-en-2k-s01--{CANDIDATE}.json"
    )
    shipped = facts_by_condition(DATA, "X-BENCH-HELDOUT-SHIPPED", "m")
    assert [c.condition for c in shipped] == ["ctxlab", "reference", "truncation"]
    assert all(r.conversation.startswith("heldout-") for c in shipped for r in c.rows)
    gate = facts_by_condition(DATA, "X-BENCH-HELDOUT-GATE", "none")
    assert [c.condition for c in gate] == ["ctxlab-gate", "truncation"]


def test_a_tune_claim_still_shows_the_tune_runs() -> None:
    wins = facts_by_condition(DATA, "X-BENCH-CTXLAB-WINS", "m")
    assert [c.condition for c in wins] == ["ctxlab", "reference", "masking"]
    assert all(not r.conversation.startswith("heldout-") for c in wins for r in c.rows)
