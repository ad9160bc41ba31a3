"""``--cpu-durations=N`` ranks test phases by CPU, not wall: a test that waits costs nothing, a
test whose child process works is charged for it (tests/support/cpu_durations.py)."""

from __future__ import annotations

import re

import pytest

INNER = """
import subprocess, sys, time

def _burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass

def test_busy():
    _burn(0.12)

def test_waits():
    time.sleep(0.3)

def test_child_works():
    subprocess.run([sys.executable, "-c", "import time\\nend = time.process_time() + 0.12\\n"
                    "while time.process_time() < end: pass"], check=True)
"""


def _phases(out: str) -> dict[str, float]:
    """CPU seconds of each test's call phase, as printed."""
    found = re.findall(r"^\s*([\d.]+)s call\s+\S+::(\w+)$", out, re.MULTILINE)
    return {name: float(seconds) for seconds, name in found}


def test_phases_are_ranked_by_cpu_and_a_child_s_cpu_is_counted(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_inprocess(
        "-p", "support.cpu_durations", "-p", "no:cacheprovider", "-q", "--cpu-durations=5"
    )
    result.assert_outcomes(passed=3)
    out = result.stdout.str()
    phases = _phases(out)
    assert phases["test_busy"] >= 0.1 and phases["test_child_works"] >= 0.1, out
    assert phases["test_waits"] < 0.1, out  # wall-clock --durations would rank it first
    assert re.search(r"^CPU: [\d.]+ s for the session", out, re.MULTILINE), out


def test_nothing_is_printed_without_the_option(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_inner="def test_one():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "support.cpu_durations", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "by CPU" not in result.stdout.str()
