"""``ctxlab --help`` and ``ctxlab --version`` import neither pandas nor matplotlib."""

from __future__ import annotations

import subprocess
import sys

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
