"""``ctxlab record X-BENCH --concurrency N`` against a real OpenAI-compatible server on 127.0.0.1
that serves requests concurrently: the cassettes recorded four at a time (each in a worker
process) are byte for byte those recorded one at a time, but for the time stamp of the
recording."""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.bench_server import BenchServer
from support.paths import ROOT

from experiments.x_bench import plan_slice, recording_plan
from experiments.x_bench.schema import Conversation


@functools.cache
def first_slice() -> list[tuple[Conversation, str]]:
    """What ``--slice 1/18`` records (computed when a test asks: the plan generates the corpus,
    about 0.4 s of CPU that every worker paid at collection, for slow tests only)."""
    return plan_slice(recording_plan(), (1, 18))


def _record(base_url: str, folder: Path, concurrency: int) -> str:
    command = [
        sys.executable, "-m", "experiments", "record", "X-BENCH",
        "--provider", "openai-compatible", "--model", "m", "--base-url", base_url,
        "--slice", "1/18", "--cassettes", str(folder / "cassettes"),
        "--out", str(folder / "reports"), "--concurrency", str(concurrency),
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _cassettes(folder: Path) -> dict[str, str]:
    """Each cassette's text, the recording's time stamp blanked."""
    stamp = re.compile(r'"recorded_at": "[^"]*"')
    return {
        str(p.relative_to(folder)): stamp.sub('"recorded_at": ""', p.read_text("utf-8"))
        for p in sorted((folder / "cassettes").rglob("*.json"))
    }


@pytest.mark.slow  # two recordings in subprocesses, each replayed
def test_cassettes_recorded_four_at_a_time_are_those_recorded_one_at_a_time(
    tmp_path: Path,
) -> None:
    with BenchServer(latency=0.05) as server:
        serial = _record(server.base_url, tmp_path / "n1", 1)
        assert server.most_in_flight == 1
        server.reset()
        parallel = _record(server.base_url, tmp_path / "n4", 4)
        assert server.most_in_flight >= 2
    one, four = _cassettes(tmp_path / "n1"), _cassettes(tmp_path / "n4")
    assert len(one) == len(first_slice()) and one == four
    # progress names the cassettes in the plan's order either way
    n = len(first_slice())
    lines = [re.findall(rf"X-BENCH \[(\d+)/{n}\]", text) for text in (serial, parallel)]
    assert lines[0] == lines[1] == [str(k) for k in range(1, n + 1)]
