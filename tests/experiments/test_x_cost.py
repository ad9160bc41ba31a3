"""X-COST: the judges are strict (they fail), the report reads its JSON back into the typed view
(:mod:`experiments.x_cost.view`), and the ledger of the recorded E3/E4 runs charges exactly the
summary calls the cassettes hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from support.paths import ROOT

from experiments.x_cost import run
from experiments.x_cost.claims import x_cost_claims
from experiments.x_cost.page import PAGE as X_COST_PAGE
from experiments.x_cost.page import x_cost_section
from experiments.x_cost.plot import x_cost_plot
from experiments.x_cost.view import LedgerRow
from lab.errors import ExperimentError
from lab.experiment import RunSettings
from lab.views import ShapeError, from_data

SET = "local-qwen2.5-coder-1.5b-instruct-q4_k_m"
"""The recorded set X-COST replays (the default set: the only one that holds E4)."""


def row(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "experiment": "E3",
        "engine": "agentscope",
        "cassette": "E3/rounds",
        "source": "local/m",
        "compactions": 1,
        "cost": 100,
        "cached": None,
        "cost_uncached": None,
        "savings": 150,
        "net": 50,
        "usage_missing": 0,
        "later_requests": 2,
        "removed_per_later_request": None,
        "break_even_requests": None,
        "ledger": {
            "compactions": [
                {
                    "index": 0,
                    "request": 1,
                    "state": "measured",
                    "summary_calls": 1,
                    "summary_prompt_tokens": 90,
                    "summary_cached_tokens": None,
                    "summary_completion_tokens": 10,
                    "cost": 100,
                    "removed_metered": 40,
                    "meter": "m",
                    "window": 2,
                    "later": [[1, 75], [2, 75]],
                    "savings": 150,
                    "net": 50,
                }
            ],
            "requests": [[10, 10], [80, 155], [80, 155]],
            "cumulative_with": [10, 190, 270],
            "cumulative_without": [10, 165, 320],
            "cost": 100,
            "cached": None,
            "savings": 150,
            "net": 50,
            "usage_missing": 0,
        },
    }
    base.update(changes)
    return base


def page_data(*rows: dict[str, Any]) -> dict[str, Any]:
    """X-COST's JSON holding ``rows``."""
    return {"experiment": "X-COST", "title": "t", "ledgers": list(rows), "provenance": []}


def statuses(rows: list[dict[str, Any]]) -> dict[str, str]:
    return {c.claim_id: c.status for c in x_cost_claims([from_data(LedgerRow, r) for r in rows])}


def test_net_pays_off_only_when_positive() -> None:
    assert statuses([row()])["X-COST-E3-AGENTSCOPE-NET"] == "match"
    for net in (0, -1, None):
        assert statuses([row(net=net)])["X-COST-E3-AGENTSCOPE-NET"] == "differs"


def test_shrink_fails_on_a_summary_larger_than_its_span() -> None:
    grown = row()
    grown["ledger"]["compactions"][0]["removed_metered"] = -1
    assert statuses([grown])["X-COST-E3-AGENTSCOPE-SHRINK"] == "differs"
    assert statuses([row()])["X-COST-E3-AGENTSCOPE-SHRINK"] == "match"


def test_break_even_is_judged_only_without_later_requests_and_can_fail() -> None:
    assert "X-COST-E3-AGENTSCOPE-BREAKEVEN" not in statuses([row()])
    for n, status in ((3, "match"), (4, "differs"), (None, "differs")):
        claims = statuses([row(later_requests=0, break_even_requests=n)])
        assert claims["X-COST-E3-AGENTSCOPE-BREAKEVEN"] == status


def test_usage_claim_fails_when_any_row_is_missing_usage() -> None:
    assert statuses([row(), row(engine="dsh")])["X-COST-USAGE"] == "match"
    assert statuses([row(), row(engine="dsh", usage_missing=1)])["X-COST-USAGE"] == "differs"


def test_two_ledgers_of_one_experiment_and_engine_are_refused() -> None:
    """A recorded set holds one cassette per experiment, so one ledger per experiment and
    engine; two would share their claims' ids, and are refused rather than judged as one."""
    with pytest.raises(ExperimentError, match="several ledgers for E3 agentscope"):
        statuses([row(cassette="E3/qwen-a"), row(cassette="E3/qwen-b")])


def test_the_page_shows_missing_usage_as_missing() -> None:
    view = X_COST_PAGE.read(page_data(row(cost=None, net=None, usage_missing=1)))
    text = x_cost_section(view, pd.DataFrame())
    assert "usage missing" in text and "not reported" in text
    plot = x_cost_plot([("a-model", view)])  # one recorded set
    assert plot.png.startswith(b"\x89PNG") and "a-model" in plot.legend


def test_a_json_of_another_shape_is_a_shape_error() -> None:
    broken = row()
    del broken["ledger"]["cumulative_with"]
    with pytest.raises(ShapeError, match="lacks the key 'cumulative_with'"):
        X_COST_PAGE.read(page_data(broken))
    with pytest.raises(ShapeError, match="should not be a boolean"):
        X_COST_PAGE.read(page_data(row(compactions=True)))
    stretched = row()
    stretched["ledger"]["compactions"][0]["later"] = [[1, 75, 3]]
    with pytest.raises(ShapeError, match=r"later\[0\] should hold 2 items"):
        X_COST_PAGE.read(page_data(stretched))


def _summary_tokens(cassette: Path) -> list[int]:
    """prompt + completion of every summary call the cassette holds (no system message: the
    AgentScope summariser's single user message, or DSH's directive as the last message)."""
    found = []
    for interaction in json.loads(cassette.read_text(encoding="utf-8"))["interactions"]:
        messages = interaction["request"]["body"]["json"]["messages"]
        usage = interaction["response"]["body"]["json"]["usage"]
        if messages[0]["role"] == "user" or "checkpoint" in messages[-1]["content"].lower():
            found.append(usage["prompt_tokens"] + usage["completion_tokens"])
    return found


def test_the_recorded_ledgers_charge_exactly_the_cassettes_summary_calls() -> None:
    result = run(RunSettings(cassette_root=ROOT / "cassettes", progress=lambda line: None))
    by_key = {(r.experiment, r.engine): r for r in X_COST_PAGE.read(result.data).ledgers}
    assert by_key[("E3", "agentscope")].cost == sum(
        _summary_tokens(ROOT / "cassettes/E3" / SET / "rounds.json")
    )
    e4 = sorted(_summary_tokens(ROOT / "cassettes/E4" / SET / "compactions.json"))
    assert sorted([by_key[("E4", "agentscope")].cost, by_key[("E4", "dsh")].cost]) == e4
