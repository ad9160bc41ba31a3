"""pytester's in-process runs remove the modules first imported inside them. httpx imports
httpcore when its first client is made and maps httpcore's exceptions by class, so a test after
such a run saw a raw ``httpcore.ConnectError`` where the harness promises its own error, unless
httpcore is imported before any test (the root conftest.py). The two tests of
tests/support/pytester_order_case.py run in that order, in a fresh process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT, TESTS


@pytest.mark.slow  # a pytest process of its own: about 4 s of CPU
def test_a_test_after_an_inline_pytester_run_gets_the_harness_error(tmp_path: Path) -> None:
    case = TESTS / "support" / "pytester_order_case.py"
    # --basetemp: a folder of its own, so that the inner session does not end by deleting the
    # oldest of the shared numbered temporary folders (another session's: 45 s of unlinking
    # under load, for 4 s of CPU)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:randomly",
         "-p", "no:cacheprovider", "-o", "addopts=", "--basetemp", str(tmp_path / "inner"),
         str(case)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    assert "2 passed" in done.stdout
