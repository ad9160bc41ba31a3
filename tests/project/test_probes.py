"""The hostile-input probe runner (docs/probes.md): every probe, each in its own process, and
none failing. ``python -m probes`` prints the table; this test requires 0 failing, and that the
runner counts a failing probe as failing (so it can fail)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support.paths import ROOT

from probes.__main__ import Outcome, table
from probes.catalogue import load
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
