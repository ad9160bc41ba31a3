"""``scripts/xbench_frontier.py``: its first row is the shipped ``ctxlab-gate``, so it must give
exactly the tune split's figures of ``reports/X-BENCH.json``; a variant with smaller budgets must
end with a smaller context; a malformed variant is refused in one sentence."""

from __future__ import annotations

import json
import re
import statistics

import pytest
from support.paths import ROOT
from support.scripts import run_in_process

SCRIPT = ROOT / "scripts" / "xbench_frontier.py"
ROW = re.compile(
    r"^  (?P<label>[^:]+): survival (?P<s>[\d.]+)%, final context (?P<mean>[\d.]+)× "
    r"truncation's \(max (?P<max>[\d.]+)×\), fewer facts than truncation on (?P<below>\d+) of "
    r"(?P<n>\d+)$"
)


def _run(*args: str) -> list[dict[str, str]]:
    out = run_in_process(SCRIPT, *args)
    return [m.groupdict() for line in out.splitlines() if (m := ROW.match(line))]


def test_the_shipped_row_is_the_reports_and_smaller_budgets_end_smaller() -> None:
    runs = json.loads((ROOT / "reports" / "X-BENCH.json").read_text("utf-8"))["runs"]
    mine = [r for r in runs if r["model"] == "none" and r["size"] == "2k"]
    gate = {r["conversation"]: r for r in mine if r["condition"] == "ctxlab-gate"}
    cut = {r["conversation"]: r for r in mine if r["condition"] == "truncation"}
    shipped, small = _run("--sizes", "2k", "1,0.05,0.03,0.02")
    assert shipped["label"].startswith("tail ×1, gate 0.3, pin 0.2, recall 0.15")
    assert int(shipped["n"]) == len(gate) == len(cut) > 0
    assert float(shipped["s"]) == round(
        100 * statistics.mean(r["survival"] for r in gate.values()), 1
    )
    ratios = [gate[c]["final_tokens"] / max(cut[c]["final_tokens"], 1) for c in gate]
    assert float(shipped["mean"]) == round(statistics.mean(ratios), 2)
    assert float(small["mean"]) < float(shipped["mean"])
    assert float(small["s"]) < float(shipped["s"])


def test_a_malformed_variant_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        _run("1,0.3,0.2")
    assert stop.value.code == 2
    assert "'1,0.3,0.2' is not TAIL,GATE,PIN,RECALL" in capsys.readouterr().err
