"""E5's rows for where the DSH checks and overflow recovery fire, and the edges of its
thresholds: each matches on the harness, fails on the plausible wrong measurement,
and flips under the catalogue's mutation that breaks its behaviour (run here in process)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from experiments.e5.claims.dsh_steps import dsh_step_claims
from experiments.e5.measures.dsh_steps import measure_dsh_steps
from experiments.e5.view.dsh_steps import DshSteps
from experiments.mutations.catalogue import MUTATIONS, by_name


@pytest.fixture(scope="module")
def measured() -> DshSteps:
    return measure_dsh_steps()


def statuses(data: DshSteps) -> dict[str, str]:
    return {c.claim_id: c.status for c in dsh_step_claims(data)}


def edited(data: DshSteps, part: str, **values: Any) -> DshSteps:
    return replace(data, **{part: replace(getattr(data, part), **values)})


def test_every_row_matches_on_the_harness(measured: DshSteps) -> None:
    assert set(statuses(measured).values()) == {"match"}, statuses(measured)
    edge = measured.pressure_edge
    assert (edge.at_window, edge.below_window) == (edge.at_window, edge.at_window + 1)


@pytest.mark.parametrize(
    ("claim_id", "part", "values"),
    [
        ("DSH-PRESTEP", "pre_step", {"checks": 1}),  # once per call
        ("DSH-PRESTEP", "pre_step", {"compacted_before": ()}),
        ("DSH-SUMMARY-PREFIX", "prefix", {"same_tools": False}),
        ("DSH-SUMMARY-PREFIX", "prefix", {"directive_last": False}),
        ("DSH-PRESSURE-EDGE", "pressure_edge", {"at_events": 0}),  # > instead of >=
        ("DSH-PRESSURE-EDGE", "pressure_edge", {"below_events": 1}),
        ("DSH-RETAIN-EDGE", "retain_edge", {"kept_at_budget": 3}),  # > instead of >=
        ("DSH-RETAIN-EDGE", "retain_edge", {"kept_one_over": 2}),
        ("DSH-SUMMARY-MERGE", "merged", {"carried": False}),  # the old summary dropped
        ("DSH-SUMMARY-MERGE", "merged", {"checkpoints_after": 2}),
        ("DSH-SUMMARY-MERGE", "merged", {"blocks_in_last": 2}),  # nested
        ("DSH-SMALLER-EDGE", "smaller_edge", {"equal_refused": ""}),
    ],
)
def test_each_row_fails_on_a_wrong_measurement(
    measured: DshSteps, claim_id: str, part: str, values: dict[str, Any]
) -> None:
    assert statuses(edited(measured, part, **values))[claim_id] == "differs"


@pytest.mark.parametrize("index", range(6))
def test_the_overflow_row_fails_when_an_ordinary_error_enters_recovery(
    measured: DshSteps, index: int
) -> None:
    others = [n for n, o in enumerate(measured.errors) if "context" not in o.error]
    errors = list(measured.errors)
    # the mutation the audit found: a 400 (429, 500) compacted and retried silently
    errors[others[index]] = replace(errors[others[index]], summaries=1, agent_requests=2)
    assert statuses(replace(measured, errors=tuple(errors)))["DSH-OVERFLOW-ONLY"] == "differs"


def test_the_overflow_row_fails_when_an_overflow_is_not_recovered(measured: DshSteps) -> None:
    errors = tuple(replace(o, summaries=0, agent_requests=1) for o in measured.errors)
    assert statuses(replace(measured, errors=errors))["DSH-OVERFLOW-ONLY"] == "differs"


@pytest.mark.parametrize(
    ("mutation", "claim_id"),
    [
        ("OVERFLOW_ANY_400", "DSH-OVERFLOW-ONLY"),
        ("DSH_PRESSURE_STRICT", "DSH-PRESSURE-EDGE"),
        ("PRESSURE_ONCE_PER_CALL", "DSH-PRESTEP"),
        ("DSH_SUMMARY_NO_TOOLS", "DSH-SUMMARY-PREFIX"),
        ("DSH_CHECKPOINT_DROPPED", "DSH-SUMMARY-MERGE"),
        ("DSH_SMALLER_STRICT", "DSH-SMALLER-EDGE"),
        ("DSH_RETAIN_STRICT", "DSH-RETAIN-EDGE"),
    ],
)
def test_the_catalogue_mutation_flips_the_row(mutation: str, claim_id: str) -> None:
    assert claim_id in by_name(mutation).must_flip
    with by_name(mutation).apply():
        broken = measure_dsh_steps()
    assert statuses(broken)[claim_id] == "differs"


def test_every_row_is_named_by_a_mutation() -> None:
    named = {claim for m in MUTATIONS for claim in m.must_flip}
    assert set(statuses(measure_dsh_steps())) <= named
