"""``ctxlab --help`` and ``ctxlab --version`` import neither pandas nor matplotlib, nor does a
``ctxlab run`` refused before it ran or a ``ctxlab compact`` with a live model (no vcrpy either);
``ctxlab run E3`` imports E3 alone of the experiments."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.manual_sessions import SUMMARY, saved_session
from support.summary_server import KEY_ENV, SummaryServer, compact_args

HEAVY = ("pandas", "matplotlib", "numpy")

PROBE = """
import sys
from experiments.cli import main
try:
    main([{flag!r}])
except SystemExit:
    pass
print("HEAVY=" + ",".join(name for name in {heavy!r} if name in sys.modules))
"""


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_stay_light(flag: str) -> None:
    probe = PROBE.format(flag=flag, heavy=HEAVY)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "HEAVY=", done.stdout


RUN_ONE = """
import sys
from experiments.cli import main
main(["run", "E3", "--out", {out!r}, "--jobs", "1"])
loaded = sorted({{m.split(".")[1] for m in sys.modules if m.startswith("experiments.")}})
print("LOADED=" + ",".join(loaded))
"""


def test_running_one_experiment_loads_that_experiment_alone(tmp_path: Path) -> None:
    """lab is handed the suite and imports an experiment (and its page) when it is asked for:
    ``ctxlab run E3`` loads E3, not the eight others."""
    probe = RUN_ONE.format(out=str(tmp_path / "out"))
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "LOADED=cli,e3,manifest", done.stdout


COMMANDS = """
import sys
from experiments.cli import main
codes = [main(argv) for argv in {argvs!r}]
print("CODES=" + ",".join(map(str, codes)))
print("HEAVY=" + ",".join(name for name in {heavy!r} if name in sys.modules))
"""


def _heavy_after(argvs: list[list[str]], heavy: tuple[str, ...], **env: str) -> tuple[str, str]:
    """``ctxlab ARGV`` for each of ``argvs``, one after the other in one fresh process: their
    exit statuses and the heavy modules they imported."""
    probe = COMMANDS.format(argvs=argvs, heavy=heavy)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True,
        env={**os.environ, **env},
    )  # fmt: skip
    lines = done.stdout.strip().splitlines()
    return lines[-2].removeprefix("CODES="), lines[-1].removeprefix("HEAVY=")


def test_a_refused_run_imports_no_report(tmp_path: Path) -> None:
    """``ctxlab run`` refused before anything ran (what the hostile-input probes ask dozens of
    times: an unknown experiment, ``--out`` the project) imports neither pandas nor matplotlib:
    the report is imported when one is built; nor importlib.metadata: the parser looks
    ctxlab's version up only for ``--version`` (about 50 ms of every command's start-up)."""
    project = tmp_path / "project"
    project.mkdir()
    unknown = ["run", "E99", "--out", str(tmp_path / "out")]
    the_project = ["run", "E1", "--out", str(project), "--project", str(project)]
    watched = (*HEAVY, "lab.report", "lab.version", "importlib.metadata")
    codes, heavy = _heavy_after([unknown, the_project], watched)
    assert (codes, heavy) == ("2,2", "")


def test_a_bench_with_a_live_model_imports_no_cassette_code(tmp_path: Path) -> None:
    """``ctxlab bench`` against a live model (here refused: no key, as the API-key probes'
    benches are, five times each) imports neither vcrpy (a cassette is read by the order
    replay without it) nor numpy (the bootstrap's, imported when an interval is computed):
    together about 0.3 s of every bench's start-up."""
    env = {k: v for k, v in os.environ.items() if k != "DEEPSEEK_API_KEY"}
    argv = ["bench", "--provider", "deepseek", "--sizes", "2k", "--seeds", "1", "--langs", "en",
            "--out", str(tmp_path / "b")]  # fmt: skip
    probe = COMMANDS.format(argvs=[argv], heavy=(*HEAVY, "vcr", "lab.recorder.matching"))
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True,
        env=env,
    )  # fmt: skip
    assert "No API key" in done.stderr, done.stderr
    assert done.stdout.strip().splitlines()[-2:] == ["CODES=2", "HEAVY="], done.stdout


def test_compact_with_a_live_model_imports_no_cassette_code(tmp_path: Path) -> None:
    """``ctxlab compact`` against a live model imports neither vcrpy nor pandas: only a provider
    is asked of :mod:`lab.recorder`, whose names are imported on first use."""
    saved_session(tmp_path)
    with SummaryServer(SUMMARY) as server:
        argv = compact_args(tmp_path, server.url, "--engine", "dsh")
        codes, heavy = _heavy_after([argv], (*HEAVY, "vcr"), **{KEY_ENV: "sk-test-0000"})
    assert (codes, heavy) == ("0", "")


IMPORTS = """
import sys
import lab.report
light = sorted(name for name in {heavy!r} if name in sys.modules)
import experiments.x_bench.page
import lab.report.evidence
import lab.report.markdown
print("REPORT=" + ",".join(light))
drawn = ("matplotlib", "lab.report.html")
print("PAGES=" + ",".join(name for name in drawn if name in sys.modules))
"""


def test_the_reports_helpers_import_no_plot() -> None:
    """``import lab.report`` loads none of the report's modules (they load when a report is
    built), and the helpers ``ctxlab bench`` writes ``bench.md`` with (X-BENCH's page, the
    evidence's facts, the Markdown tables) import no matplotlib: a plot imports it when drawn."""
    probe = IMPORTS.format(heavy=(*HEAVY, "jinja2", "lab.report.tables"))
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip().splitlines()[-2:] == ["REPORT=", "PAGES="], done.stdout
