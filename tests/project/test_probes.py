"""The hostile-input probe runner (docs/probes.md): every probe, each in its own process, and
none failing. ``python -m probes`` prints the table; this test requires 0 failing, and that the
runner counts a failing probe as failing (so it can fail)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

from probes.__main__ import Outcome, run, table
from probes.catalogue import load
from probes.damaged_files import many_facts, many_facts_pieces
from probes.registry import CLASSES, Probe


def test_the_catalogue_covers_every_defect_and_class() -> None:
    probes = load().values()
    assert len(probes) >= 96  # the round had 96
    assert {p.kind for p in probes} == set(CLASSES)
    assert set(range(0, 27)) | {28} <= {p.defect for p in probes}


def test_a_failing_probe_is_counted_as_failing() -> None:
    probe = Probe("x", "security", 9, lambda folder: None)
    text = table([Outcome(probe, True, 0.1, "FAILED: leaked")])
    assert "| security | 1 | 1 |" in text and "defects showing: 1 (9)" in text


@pytest.mark.slow
def test_every_probe_holds() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "probes", "-j", "2"], capture_output=True, text=True, cwd=ROOT,
        env=env, timeout=3600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert "| **all** |" in done.stdout and "defects showing: 0" in done.stdout


def _leaks(folder: Path) -> None:
    (folder / "secret").write_text("x", encoding="utf-8")
    raise AssertionError("leaked the secret")


def test_a_probe_run_in_its_forked_process_fails_with_its_reason_and_others_hold() -> None:
    # the runner forks one process per probe: a failure there must reach the table, and a
    # probe that kills its own process fails rather than stopping the runner
    probes = [
        Probe("leaks", "security", 9, _leaks),
        Probe("holds", "robustness", 1, lambda folder: None),
        Probe("dies", "robustness", 2, lambda folder: os._exit(3)),
    ]
    outcomes = {o.probe.name: o for o in run(probes, jobs=2, keep=False)}
    assert outcomes["leaks"].failed and "leaked the secret" in outcomes["leaks"].reason
    assert not outcomes["holds"].failed
    assert outcomes["dies"].failed


@pytest.mark.parametrize("count", [0, 1, 3, 200])
def test_many_facts_is_the_text_json_dumps_writes(count: int) -> None:
    # the million-facts probe builds its file from one fact's text; it must be the file a
    # json.dumps of the million dicts wrote (a wrong separator or id fails here)
    conversation = {"id": "c1", "turns": [], "facts": [{"id": "x", "kind": "k", "turn": 5}]}
    fact = conversation["facts"][0]
    facts = [{**fact, "id": f"f{n}"} for n in range(count)]
    dumped = json.dumps([{**conversation, "facts": facts}])
    assert many_facts(conversation, count) == dumped
    # the probe writes it in pieces: any piece size gives the same text
    assert "".join(many_facts_pieces(conversation, count, per=7)) == dumped
