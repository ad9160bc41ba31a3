"""X-BENCH's held-out claims judge the held-out runs strictly: each target missed alone turns the
row to ``differs`` (a plausible near miss included), a model with nothing to compare gets no row,
and nothing of the tune split is read."""

from __future__ import annotations

import dataclasses

import pytest
from support.bench_runs import SMALL, bench_run, bench_view

from experiments.x_bench.conditions import CANDIDATE
from experiments.x_bench.heldout_claims import SHIPPED, heldout_claims
from experiments.x_bench.heldout_page import heldout_section, kind_table
from experiments.x_bench.view import RunRecord

CONVERSATIONS = ("h1", "h2", "h3", "h4", "h5")
RATES = {CANDIDATE: 0.9, "reference": 0.5, "truncation": 0.2}


def _heldout(**per_condition: dict[str, object]) -> list[RunRecord]:
    """Five held-out conversations: the candidate, reference and truncation recorded (survival
    by :data:`RATES`, varied a little per conversation), the model-free truncation and
    ctxlab-gate runs beside them; ``per_condition`` overrides a condition's fields."""
    runs = []
    for i, c in enumerate(CONVERSATIONS):
        for name, rate in RATES.items():
            fields = {"survival": rate + 0.01 * i, **per_condition.get(name, {})}
            runs.append(bench_run(name, c, **fields))  # type: ignore[arg-type]
        free = {"ctxlab-gate": 0.8, "truncation": 0.2} | per_condition.get("free", {})  # type: ignore[operator]
        for name in ("ctxlab-gate", "truncation"):
            final = 600 if name == "ctxlab-gate" else 500
            runs.append(bench_run(name, c, free[name] + 0.01 * i, "none", final_tokens=final))
    return runs


def _judged(runs: list[RunRecord]) -> dict[str, tuple[str, str]]:
    view = dataclasses.replace(bench_view([]), heldout=runs)
    return {c.claim_id: (c.status, c.reproduced_value) for c in heldout_claims(view)}


def test_both_match_when_every_target_holds() -> None:
    judged = _judged(_heldout())
    assert judged["X-BENCH-HELDOUT-GATE"][0] == "match"
    status, value = judged["X-BENCH-HELDOUT-PROFILE"]
    assert status == "match", value
    assert value.startswith("92% [") and "over 5 held-out conversations" in value


@pytest.mark.parametrize(
    "change",
    [
        {CANDIDATE: {"survival": 0.79}},  # just under 80 %, still far above the reference
        {CANDIDATE: {"carried_tokens": [400, 501]}},  # one token more than the reference
        {CANDIDATE: {"correct": 5}},  # one probe answer fewer than the reference
        {CANDIDATE: {"invented": ["INC-999"]}},  # one invented identifier
        {"reference": {"survival": 0.92}},  # no better than the reference: interval not > 0
    ],
)
def test_the_profile_differs_on_any_one_target_missed(change: dict[str, dict[str, object]]) -> None:
    status, value = _judged(_heldout(**change))["X-BENCH-HELDOUT-PROFILE"]
    assert status == "differs", value


def test_the_profile_on_fewer_than_four_conversations_differs() -> None:
    runs = [r for r in _heldout() if r.conversation in CONVERSATIONS[:3]]
    assert _judged(runs)["X-BENCH-HELDOUT-PROFILE"][0] == "differs"


@pytest.mark.parametrize(
    "free",
    [
        {"ctxlab-gate": 0.72},  # 74 %, just under 75 %
        {"ctxlab-gate": 0.18},  # fewer than truncation
    ],
)
def test_the_gate_differs_on_any_one_target_missed(free: dict[str, float]) -> None:
    assert _judged(_heldout(free=free))["X-BENCH-HELDOUT-GATE"][0] == "differs"


def test_the_gate_differs_when_its_final_context_is_over_a_quarter_above_truncations() -> None:
    runs = [
        dataclasses.replace(r, final_tokens=626) if r.condition == "ctxlab-gate" else r
        for r in _heldout()
    ]
    status, value = _judged(runs)["X-BENCH-HELDOUT-GATE"]
    assert status == "differs" and "final context 1.25× truncation's" in value  # 1.252


def test_no_profile_row_without_the_candidate_and_no_row_at_all_without_heldout_runs() -> None:
    runs = [r for r in _heldout() if r.condition != CANDIDATE]
    assert set(_judged(runs)) == {"X-BENCH-HELDOUT-GATE"}
    assert _judged([]) == {}


def test_the_page_shows_the_heldout_tables_apart() -> None:
    view = dataclasses.replace(bench_view([]), heldout=_heldout())
    text = "\n".join(heldout_section(view))
    assert "### The held-out split" in text and f"`{CANDIDATE}` on 5 held-out" in text
    assert f"{CANDIDATE} minus this [95 % CI]" in text
    assert heldout_section(bench_view([])) == []
    assert SMALL in text


def test_the_kind_table_counts_each_kind_per_condition_and_keeps_models_apart() -> None:
    runs = [
        bench_run(CANDIDATE, "h1", 0.5, survived=["name"], lost=["constraint"]),
        bench_run(CANDIDATE, "h2", 1.0, survived=["name", "constraint"]),
        bench_run(CANDIDATE, "h1", 0.0, "other-model", lost=["name", "constraint"]),
        bench_run("ctxlab-gate", "h1", 0.5, "none", survived=["constraint"], lost=["name"]),
        bench_run("truncation", "h1", 0.0, "none", lost=["update"]),
    ]
    table = kind_table(runs, SMALL).set_index("fact kind")
    assert list(table.columns) == [CANDIDATE, "ctxlab-gate (no model)", "truncation (no model)"]
    assert table.loc["name", CANDIDATE] == "2/2 (100%)"
    assert table.loc["constraint", CANDIDATE] == "1/2 (50%)"
    assert table.loc["name", "ctxlab-gate (no model)"] == "0/1 (0%)"
    assert table.loc["update", CANDIDATE] == "—"
    other = kind_table(runs, "other-model").set_index("fact kind")
    assert other.loc["name", CANDIDATE] == "0/1 (0%)"


def _shipped(rate: float, **fields: object) -> list[RunRecord]:
    """The five conversations with the shipped profile recorded too, at ``rate``."""
    shipped = [
        bench_run(SHIPPED, c, rate + 0.01 * i, **fields) for i, c in enumerate(CONVERSATIONS)
    ]
    return [*_heldout(), *shipped]


def test_the_shipped_profile_is_judged_by_the_same_targets_beside_the_candidate() -> None:
    assert "X-BENCH-HELDOUT-SHIPPED" not in _judged(_heldout())  # not recorded: no row
    status, value = _judged(_shipped(0.9))["X-BENCH-HELDOUT-SHIPPED"]
    assert status == "match", value
    assert value.startswith("92% [")
    for weak in (_shipped(0.77), _shipped(0.9, invented=["INC-1"])):  # 79 %; one invented id
        status, value = _judged(weak)["X-BENCH-HELDOUT-SHIPPED"]
        assert status == "differs", value
    # the candidate's row is untouched by the shipped profile's runs
    assert _judged(_shipped(0.1))["X-BENCH-HELDOUT-PROFILE"][0] == "match"
