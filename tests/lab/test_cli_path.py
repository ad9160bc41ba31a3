"""The tests that start ``ctxlab`` as a process (``support.paths.CTXLAB``) reach the command of
the interpreter running them, with no activated venv on ``PATH``: ``.venv/bin/python -m pytest``
ran two slow tests into ``FileNotFoundError: 'ctxlab'`` when they called it by name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.paths import CTXLAB, ROOT


def test_ctxlab_runs_with_no_venv_on_path() -> None:
    bare = {**os.environ, "PATH": os.defpath}  # the fault: nothing of the venv on PATH
    bare.pop("VIRTUAL_ENV", None)
    done = subprocess.run(
        [*CTXLAB, "--help"], cwd=ROOT, env=bare, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "usage" in done.stdout.lower()
    assert Path(CTXLAB[0]).parent == Path(sys.executable).parent  # this interpreter's command
