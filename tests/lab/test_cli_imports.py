"""``ctxlab --help`` and ``ctxlab --version`` import neither pandas nor matplotlib, nor does a
``ctxlab run`` refused before it ran or a ``ctxlab compact`` with a live model (no vcrpy either);
``ctxlab run E3`` imports E3 alone of the experiments.

What a command imports is only seen in a fresh interpreter, but each interpreter costs its
start-up (Python, pytest's absence, ``experiments.cli``): the commands run one after the other in
two fresh processes (:data:`COMMANDS`, :data:`BENCH_AND_HELPERS`), and after each stage the probe
prints what the modules watched so far are. A module stays imported once loaded, so a stage sees
what it and every stage before it imported: a heavy import fails its own stage's test and every
later stage's of that process, never none. The stages are ordered so that no stage needs a module
a later stage watches (``--version`` looks the version up with ``importlib.metadata``, which the
refused run must not import; ``ctxlab run E3`` builds a report, which imports everything else)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.manual_sessions import SUMMARY, saved_session
from support.summary_server import KEY_ENV, SummaryServer, compact_args
from test_cli import claim_statuses, rows, summary_counts

from lab.cli import main

HEAVY = ("pandas", "matplotlib", "numpy")

PROBE = """
import importlib, json, runpy, sys
from experiments.cli import main

def run(argv):
    try:
        return str(main(argv))
    except SystemExit as stop:
        return f"exit {stop.code}"

def run_as_module(argv):
    sys.argv = ["experiments", *argv]
    try:
        runpy.run_module("experiments", run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        return f"exit {stop.code}"
    return "no exit"

for stage in json.loads(sys.argv[1]):
    codes = [run(argv) for argv in stage.get("argvs", [])]
    codes += [run_as_module(argv) for argv in stage.get("module_argvs", [])]
    for name in stage.get("imports", []):
        importlib.import_module(name)
    heavy = [name for name in stage["watched"] if name in sys.modules]
    loaded = sorted({m.split(".")[1] for m in sys.modules if m.startswith("experiments.")})
    line = {"codes": ",".join(codes), "heavy": ",".join(heavy), "loaded": ",".join(loaded)}
    print(stage["name"] + "=" + json.dumps(line), flush=True)
"""

Stages = dict[str, dict[str, str]]


def _probe(stages: list[dict[str, Any]], env: dict[str, str]) -> tuple[Stages, str]:
    """Run the ``stages`` in one fresh interpreter: each stage's codes, watched modules found
    and experiments loaded (by name), and the process's stderr."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(stages)],
        capture_output=True, text=True, timeout=300, check=True, env=env,
    )  # fmt: skip
    found, printed = {}, ""
    for line in done.stdout.splitlines():
        name, sep, figures = line.partition("=")
        if sep and figures.startswith("{") and name in {s["name"] for s in stages}:
            found[name] = {**json.loads(figures), "printed": printed}
        elif line.strip():
            printed = line  # the last line a stage's commands printed
    assert [s["name"] for s in stages] == list(found), done.stdout
    return found, done.stderr


def _commands(out: Path) -> list[dict[str, Any]]:
    """The refused runs, ``--help``, ``--version``, then ``python -m experiments run E3`` (as
    ``-m`` runs it: :func:`runpy.run_module`, its ``SystemExit`` caught for the last print)."""
    project = out / "project"
    project.mkdir()
    unknown = ["run", "E99", "--out", str(out / "unknown")]
    the_project = ["run", "E1", "--out", str(project), "--project", str(project)]
    refused_watch = [*HEAVY, "lab.report", "lab.version", "importlib.metadata"]
    return [
        {"name": "refused", "argvs": [unknown, the_project], "watched": refused_watch},
        {"name": "help", "argvs": [["--help"]], "watched": HEAVY},
        {"name": "version", "argvs": [["--version"]], "watched": HEAVY},
        {"name": "run-e3", "module_argvs": [["run", "E3", "--out", str(out / "e3"), "--jobs", "1"]],
         "watched": []},
    ]  # fmt: skip


def _bench_and_helpers(out: Path, url: str) -> list[dict[str, Any]]:
    """A refused bench, a compact against ``url``, then the report's helpers imported."""
    bench = ["bench", "--provider", "deepseek", "--sizes", "2k", "--seeds", "1", "--langs", "en",
             "--out", str(out / "b")]  # fmt: skip
    light = [*HEAVY, "jinja2", "lab.report.tables"]
    pages = ["experiments.x_bench.page", "lab.report.evidence", "lab.report.markdown"]
    return [
        {"name": "bench", "argvs": [bench], "watched": [*HEAVY, "vcr", "lab.recorder.matching"]},
        {"name": "compact", "argvs": [compact_args(out, url, "--engine", "dsh")],
         "watched": [*HEAVY, "vcr"]},
        {"name": "report", "imports": ["lab.report"], "watched": light},
        {"name": "pages", "imports": pages, "watched": ["matplotlib", "lab.report.html"]},
    ]  # fmt: skip


COMMANDS_FOLDER = "commands"
"""The folder (under the module's temporary folder) the first probe's commands write into."""


@pytest.fixture(scope="module")
def stages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Stages, str]:
    """Every stage of the two probes, and the second one's stderr."""
    env = {k: v for k, v in os.environ.items() if k != "DEEPSEEK_API_KEY"}
    commands = tmp_path_factory.getbasetemp() / COMMANDS_FOLDER
    commands.mkdir()
    found, _ = _probe(_commands(commands), env)
    workspace = tmp_path_factory.mktemp("bench-and-helpers")
    saved_session(workspace)
    with SummaryServer(SUMMARY) as server:
        more, stderr = _probe(_bench_and_helpers(workspace, server.url), {**env, KEY_ENV: "sk-0"})
    return {**found, **more}, stderr


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_stay_light(flag: str, stages: tuple[Stages, str]) -> None:
    stage = stages[0][flag.removeprefix("--")]
    assert stage["codes"] in ("0", "exit 0") and stage["heavy"] == "", stage


def test_running_one_experiment_loads_that_experiment_alone(stages: tuple[Stages, str]) -> None:
    """lab is handed the suite and imports an experiment (and its page) when it is asked for:
    ``ctxlab run E3`` loads E3, not the eight others (nor had any stage before it)."""
    before, after = stages[0]["version"], stages[0]["run-e3"]
    assert before["loaded"] in ("cli,manifest", "cli"), before
    assert after["loaded"] == "cli,e3,manifest", after


def test_run_through_a_subprocess(
    stages: tuple[Stages, str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``python -m experiments run E3`` in a process of its own exits 0 with the reports
    written (the ``run`` a user starts as a process; tests/lab/test_cli.py runs it in process,
    and a refused one through ``python -m experiments``)."""
    out = tmp_path_factory.getbasetemp() / COMMANDS_FOLDER / "e3"
    stage = stages[0]["run-e3"]
    assert stage["codes"] == "exit 0", stage
    assert (out / "E3.json").is_file()
    assert (out / "claims.csv").is_file()
    matched, differed, mixed, total = summary_counts(stage["printed"])
    table = rows(out / "claims.csv")
    assert matched + differed + mixed == total == len(claim_statuses(table))  # claims, not rows
    # Same bytes as an in-process run.
    again = tmp_path_factory.mktemp("again")
    assert main(["run", "E3", "--out", str(again), "--jobs", "1"]) == 0
    for name in ("E3.json", "claims.csv"):
        assert (again / name).read_bytes() == (out / name).read_bytes()


def test_a_refused_run_imports_no_report(stages: tuple[Stages, str]) -> None:
    """``ctxlab run`` refused before anything ran (what the hostile-input probes ask dozens of
    times: an unknown experiment, ``--out`` the project) imports neither pandas nor matplotlib:
    the report is imported when one is built; nor importlib.metadata: the parser looks
    ctxlab's version up only for ``--version`` (about 50 ms of every command's start-up)."""
    stage = stages[0]["refused"]
    assert (stage["codes"], stage["heavy"]) == ("2,2", ""), stage


def test_a_bench_with_a_live_model_imports_no_cassette_code(stages: tuple[Stages, str]) -> None:
    """``ctxlab bench`` against a live model (here refused: no key, as the API-key probes'
    benches are, five times each) imports neither vcrpy (a cassette is read by the order
    replay without it) nor numpy (the bootstrap's, imported when an interval is computed):
    together about 0.3 s of every bench's start-up."""
    found, stderr = stages
    assert "No API key" in stderr, stderr
    assert (found["bench"]["codes"], found["bench"]["heavy"]) == ("2", ""), found["bench"]


def test_compact_with_a_live_model_imports_no_cassette_code(stages: tuple[Stages, str]) -> None:
    """``ctxlab compact`` against a live model imports neither vcrpy nor pandas: only a provider
    is asked of :mod:`lab.recorder`, whose names are imported on first use."""
    stage = stages[0]["compact"]
    assert (stage["codes"], stage["heavy"]) == ("0", ""), stage


def test_the_reports_helpers_import_no_plot(stages: tuple[Stages, str]) -> None:
    """``import lab.report`` loads none of the report's modules (they load when a report is
    built), and the helpers ``ctxlab bench`` writes ``bench.md`` with (X-BENCH's page, the
    evidence's facts, the Markdown tables) import no matplotlib: a plot imports it when drawn."""
    report, pages = stages[0]["report"], stages[0]["pages"]
    assert (report["heavy"], pages["heavy"]) == ("", ""), (report, pages)
