"""pytester's in-process runs remove the modules first imported inside them. httpx imports
httpcore when its first client is made and maps httpcore's exceptions by class, so a test after
such a run saw a raw ``httpcore.ConnectError`` where the harness promises its own error, unless
httpcore is imported before any test (the root conftest.py). The two tests of
tests/support/pytester_order_case.py run in that order, in a fresh process."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.paths import ROOT, TESTS


@pytest.mark.slow  # a pytest process of its own: about 6 s of CPU
def test_a_test_after_an_inline_pytester_run_gets_the_harness_error() -> None:
    case = TESTS / "support" / "pytester_order_case.py"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:randomly",
         "-p", "no:cacheprovider", "-o", "addopts=", str(case)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    assert "2 passed" in done.stdout
