"""``scripts/xbench_whatif.py``: its estimate is order replay of the recorded answers, so with
the profile unchanged it must give exactly what the recorded runs gave (the figures of
X-BENCH-CTXLAB-WINS in ``reports/X-BENCH.json``), and a smaller summary budget must carry fewer
tokens."""

from __future__ import annotations

import json
import re
import runpy
import subprocess
import sys

from support.paths import ROOT

from experiments.x_bench.headline import carried
from experiments.x_bench.view import XBenchView
from lab.views import from_data

SCRIPT = ROOT / "scripts" / "xbench_whatif.py"
LINE = re.compile(
    r"^  (?P<label>[^:]+): survival (?P<s>[\d.]+)%, carried (?P<c>\d+) tokens on (?P<n>\d+)$"
)


def _run_script(*args: str) -> str:
    """The script's stdout, run as its own process (once: its start-up is under test too)."""
    done = subprocess.run(
        [sys.executable, "scripts/xbench_whatif.py", *args],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    return done.stdout


def _estimated_carried(summary_budget: float) -> dict[str, int]:
    """The changed profile's estimate alone, carried tokens per recorded set, measured in this
    process by the script's own functions as its ``main`` measures that row (no second
    start-up, and the recorded profile's and the reference prompt's rows, which the script's
    run above gave already, are not measured again)."""
    script = runpy.run_path(str(SCRIPT), run_name="xbench_whatif")
    condition = script["ctxlab_condition"](
        summary_budget=summary_budget, gate=script["CTXLAB_GATE"]
    )
    conversations = script["bench_conversations"]()
    found = {}
    for cassette_set in script["list_sets"](ROOT / "cassettes", "X-BENCH"):
        _, carried, _ = script["_measure"](conversations, cassette_set, condition, "ctxlab")
        found[cassette_set] = round(carried)
    return found


def _whatif(stdout: str) -> dict[str, dict[str, tuple[float, int, int]]]:
    found: dict[str, dict[str, tuple[float, int, int]]] = {}
    model = ""
    for line in stdout.splitlines():
        if not line.startswith(" "):
            model = line.strip()
            found[model] = {}
        elif match := LINE.match(line):
            found[model][match["label"].split(",")[0]] = (
                float(match["s"]), int(match["c"]), int(match["n"])
            )  # fmt: skip
    return found


def test_the_unchanged_profile_gives_the_recorded_figures_and_a_smaller_budget_carries_less() -> (
    None
):
    view = from_data(XBenchView, json.loads((ROOT / "reports" / "X-BENCH.json").read_text()))
    unchanged = _whatif(_run_script())
    smaller = _estimated_carried(0.25)
    assert set(unchanged) == {r.model for r in view.runs if r.model != "none"}
    for model, rows in unchanged.items():
        ours = [r for r in view.runs if r.model == model and r.condition == "ctxlab"]
        survival = 100 * sum(r.survival for r in ours) / len(ours)
        assert rows["ctxlab as recorded"] == (round(survival, 1), round(carried(ours)), len(ours))
        assert rows["ctxlab"] == rows["ctxlab as recorded"]  # the estimate, profile unchanged
        assert smaller[model] < rows["ctxlab"][1]
