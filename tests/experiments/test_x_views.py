"""The X experiments' typed views (experiments/x_gate/view.py, x_thrash.py, x_cost.py): each
reads the committed report back into the equal view and writes the same bytes again, the
replayed experiments write what is committed, and a JSON of another shape is a ShapeError that
the reports turn into the generic page instead of a crash."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.paths import ROOT

from experiments import x_cost, x_gate
from experiments.x_cost.view import XCostView
from experiments.x_gate.view import XGateView
from experiments.x_thrash.view import XThrashView
from lab.experiment import RunSettings, dump_json, write_json
from lab.report import build_reports
from lab.report.experiments import read_view
from lab.report.tables import ExperimentDoc
from lab.runner import versioned
from lab.views import ShapeError, from_data, to_data

REPORTS = ROOT / "reports"
QUIET = {"progress": lambda _line: None}

VIEWS: dict[str, type] = {
    "X-GATE": XGateView,
    "X-GATE@qwen2.5-coder-0.5b-instruct-q4_k_m": XGateView,
    "X-THRASH": XThrashView,
    "X-COST": XCostView,
}


def committed(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REPORTS / f"{name}.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("name", VIEWS)
def test_the_committed_json_reads_back_into_the_view_and_writes_the_same_bytes(name: str) -> None:
    view_type = VIEWS[name]
    text = (REPORTS / f"{name}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    version = data.pop("version")  # the run's, written beside the view (lab.runner.versioned)
    view = from_data(view_type, data)
    assert from_data(view_type, to_data(view)) == view
    # every key is declared, in the order written: the view is the whole schema
    assert dump_json(versioned(to_data(view), version)) == text


MEASURED: dict[str, tuple[Callable[[RunSettings], Any], type]] = {
    "X-GATE": (x_gate.measure, XGateView),
    "X-COST": (x_cost.measure, XCostView),
}


@pytest.mark.parametrize("name", MEASURED)
def test_a_replayed_x_experiment_writes_the_committed_view(name: str) -> None:
    measure, view_type = MEASURED[name]
    view = measure(RunSettings(cassette_root=ROOT / "cassettes", **QUIET))  # type: ignore[arg-type]
    assert isinstance(view, view_type)
    assert view == from_data(view_type, committed(name))


def test_x_gate_claims_read_the_view() -> None:
    rows = {c.claim_id: c for c in x_gate.claims(from_data(XGateView, committed("X-GATE")))}
    assert rows["X-GATE-E4-AS-ON"].reproduced_value == "4 of 4"
    assert rows["X-GATE-E4-AS-OFF"].reproduced_value == "2 of 4 (dropped: order id, number)"
    assert "the gate added “收到”" in rows["X-GATE-E3-ON"].note
    small = from_data(XGateView, committed("X-GATE@qwen2.5-coder-0.5b-instruct-q4_k_m"))
    refused = {c.claim_id: c for c in x_gate.claims(small)}["X-GATE-E4-DSH-OFF"]
    assert refused.status == "differs"  # the 0.5B model's DSH summary was cut and refused
    assert "left no summary on the surface" in refused.note
    without_e4 = dataclasses.replace(small, e4=None)  # a set that recorded E3 but not E4
    assert [c.claim_id for c in x_gate.claims(without_e4)] == ["X-GATE-E3-OFF", "X-GATE-E3-ON"]


BROKEN: dict[str, tuple[str, Callable[[dict[str, Any]], None], str]] = {
    "x-gate summaries not text": (
        "X-GATE",
        lambda d: d["e3"]["on"].update(summaries=[1]),
        "XGateView.e3.on.summaries[0] should be str",
    ),
    "x-gate engine without kept": (
        "X-GATE",
        lambda d: d["e4"]["off"]["dsh"].pop("kept"),
        "XGateView.e4.off.dsh lacks the key 'kept'",
    ),
    "x-thrash run without guard": (
        "X-THRASH",
        lambda d: d["with_guard"].pop("guard"),
        "XThrashView.with_guard lacks the key 'guard'",
    ),
    "x-cost ledger a list": (
        "X-COST",
        lambda d: d["ledgers"][0].update(ledger=[]),
        "XCostView.ledgers[0].ledger should be an object",
    ),
    "x-cost provenance without model": (
        "X-COST",
        lambda d: d["provenance"][0].pop("model"),
        "XCostView.provenance[0] lacks the key 'model'",
    ),
}


@pytest.mark.parametrize(("name", "break_it", "message"), BROKEN.values(), ids=BROKEN.keys())
def test_a_json_of_another_shape_is_a_shape_error_naming_where(
    name: str, break_it: Callable[[dict[str, Any]], None], message: str
) -> None:
    data = committed(name)
    break_it(data)
    with pytest.raises(ShapeError, match=re.escape(message)):
        from_data(VIEWS[name], data)


@pytest.mark.parametrize("name", ["X-THRASH", "X-COST"])
def test_read_view_falls_back_to_the_generic_page_on_a_shape_error(name: str) -> None:
    data = committed(name)
    view, reason = read_view(ExperimentDoc(name, data, ""))
    assert isinstance(view, VIEWS[name]) and reason == ""
    del data["ledgers" if name == "X-COST" else "refill"]
    view, reason = read_view(ExperimentDoc(name, data, ""))
    assert view is None and reason.startswith("its JSON is not shaped as expected (")


def test_x_gate_has_no_page_of_its_own() -> None:
    view, reason = read_view(ExperimentDoc("X-GATE", committed("X-GATE"), ""))
    assert view is None and reason == "no dedicated page for this experiment"


def test_malformed_x_json_gets_generic_pages_not_a_crash(tmp_path: Path) -> None:
    malformed = ("X-GATE", "X-THRASH", "X-COST")
    shutil.copy(REPORTS / "claims.csv", tmp_path / "claims.csv")
    # The other experiments' views, as a run leaves them: without them each of their claims'
    # evidence pages shows every call of the experiment's cassettes (X-BENCH's thousands).
    for view in REPORTS.glob("*.json"):
        if view.name != "mutations.inputs.json" and not view.name.startswith(malformed):
            shutil.copy(view, tmp_path)
    for name in malformed:
        data = committed(name)
        data.pop({"X-GATE": "e3", "X-THRASH": "with_guard", "X-COST": "provenance"}[name])
        write_json(tmp_path / f"{name}.json", data)
    written = {p.name for p in build_reports(tmp_path)}
    assert {"X-GATE.md", "X-THRASH.md", "X-COST.md", "index.html"} <= written
    assert "X-COST_cumulative.png" not in written
    for name in ("X-THRASH", "X-COST"):
        page = (tmp_path / f"{name}.md").read_text(encoding="utf-8")
        assert "_Shown as recorded: its JSON is not shaped as expected (" in page
        assert f"| {name}-" in page  # the claims are still shown
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "generic page: its JSON is not shaped as expected" in index
