"""``scripts/xbench_whatif.py``: its estimate is order replay of the recorded answers, so with
the profile unchanged it must give exactly what the recorded runs gave (the figures of
X-BENCH-CTXLAB-WINS in ``reports/X-BENCH.json``, on the same conversations), and a smaller
summary budget must carry fewer tokens. It plays a subset of the conversations (both languages,
two sizes, every recorded model): the whole replay is the claims table's (issue 48)."""

from __future__ import annotations

import json
import re
import runpy
import subprocess
import sys

import pytest
from support.paths import ROOT
from support.scripts import run_in_process

from experiments.x_bench.headline import carried
from experiments.x_bench.view import XBenchView
from lab.views import from_data

SCRIPT = ROOT / "scripts" / "xbench_whatif.py"
SUBSET = ("zh-2k-s01", "en-2k-s02", "en-8k-s01")
"""The conversations played (each recorded on every model: test_x_bench.py's order subset)."""
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
    conversations = [c for c in script["bench_conversations"]() if c.id in SUBSET]
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
    unchanged = _whatif(_run_script("--conversations", ",".join(SUBSET)))
    smaller = _estimated_carried(0.25)
    assert set(unchanged) == {r.model for r in view.runs if r.model != "none"}
    for model, rows in unchanged.items():
        ours = [
            r
            for r in view.runs
            if r.model == model and r.condition == "ctxlab" and r.conversation in SUBSET
        ]
        assert len(ours) == len(SUBSET)
        survival = 100 * sum(r.survival for r in ours) / len(ours)
        assert rows["ctxlab as recorded"] == (round(survival, 1), round(carried(ours)), len(ours))
        assert rows["ctxlab"] == rows["ctxlab as recorded"]  # the estimate, profile unchanged
        assert smaller[model] < rows["ctxlab"][1]


def test_a_conversation_it_does_not_know_is_refused_before_any_replay(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        run_in_process(SCRIPT, "--conversations", f"{SUBSET[0]},en-2k-s99")
    assert info.value.code == 2
    assert "no such conversation: en-2k-s99" in capsys.readouterr().err
