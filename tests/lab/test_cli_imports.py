"""``ctxlab --help`` and ``ctxlab --version`` import neither pandas nor matplotlib, and ``ctxlab run
E3`` imports E3 alone of the experiments."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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
