"""``ctxlab bench --concurrency N`` against a real OpenAI-compatible server on 127.0.0.1 that
serves requests concurrently: the outputs are byte for byte the same at N = 1 and N = 8; a
server refusing every other request with 429 and ``Retry-After`` is waited out and the
refusals are counted; a bench killed with ``kill -9`` at N = 8 goes on asking the model only
for the runs it had not finished, and ends byte for byte as an uninterrupted bench."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.bench_server import BenchServer, is_probe
from support.paths import ROOT

from experiments.x_bench.journal import JOURNAL_NAME
from lab.cli import main

GRID = ["--sizes", "2k", "--seeds", "1-2", "--langs", "zh,en"]
CONDITIONS = ["--conditions", "truncation,agentscope,ctxlab,masking"]
RUNS = 16  # 4 conversations under 4 conditions
OUTPUTS = ("bench-runs.csv", "bench-kinds.csv", "bench.md", "bench-shard.json")
_SERVER = re.compile(r"http://127\.0\.0\.1:\d+/")


def bench(base_url: str, out: Path, *extra: str) -> list[str]:
    return [
        "bench", "--provider", "openai-compatible", "--base-url", base_url, "--model", "m",
        *GRID, *CONDITIONS, "--out", str(out), *extra,
    ]  # fmt: skip


def same_outputs(one: Path, other: Path) -> None:
    for name in OUTPUTS:
        assert (one / name).read_bytes() == (other / name).read_bytes(), name
    # the journal is appended as runs finish: the same lines, in another order (each line's
    # key names the server it asked: its port is the only difference between two servers)
    lines = [sorted(_SERVER.sub("SERVER", (f / JOURNAL_NAME).read_text("utf-8")).splitlines())
             for f in (one, other)]  # fmt: skip
    assert lines[0] == lines[1]


@dataclasses.dataclass(frozen=True)
class Serial:
    """A bench of the grid at one run at once, uninterrupted: its folder, and the most requests
    the server had in flight and saw."""

    out: Path
    most_in_flight: int
    seen: int


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> Serial:
    """The module's reference bench, made once (the server answers from a request's content
    alone, so every uninterrupted bench of the grid writes these bytes): the tests only read it."""
    out = tmp_path_factory.mktemp("serial") / "n1"
    with BenchServer(latency=0.02) as server:
        assert main(bench(server.base_url, out)) == 0
        return Serial(out, server.most_in_flight, server.seen)


def test_the_outputs_are_the_same_at_one_and_eight_runs_at_once(
    tmp_path: Path, serial: Serial
) -> None:
    with BenchServer(latency=0.02) as server:
        assert main(bench(server.base_url, tmp_path / "n8", "--concurrency", "8")) == 0
        assert serial.most_in_flight == 1 and server.most_in_flight >= 4
        assert serial.seen == server.seen
    same_outputs(serial.out, tmp_path / "n8")


def test_a_429_storm_is_waited_out_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], serial: Serial
) -> None:
    with BenchServer(refuse_every=2, retry_after="0") as server:
        assert main(bench(server.base_url, tmp_path / "storm", "--concurrency", "8")) == 0
        refused = server.refused
        assert refused >= RUNS  # half the requests
        err = capsys.readouterr().err
        assert f"the server refused {refused} request(s) (429/503)" in err
        assert f"{refused} refused (429/503)" in err.splitlines()[-2]  # the last progress line
    same_outputs(tmp_path / "storm", serial.out)  # as a bench no server refused


def _journaled(path: Path) -> int:
    """Whole lines of a journal (a line cut short by the kill does not count)."""
    count = 0
    for line in path.read_text("utf-8").splitlines() if path.exists() else []:
        try:
            json.loads(line)
        except ValueError:
            continue
        count += 1
    return count


def _wait_for_lines(path: Path, lines: int, child: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while _journaled(path) < lines:
        assert child.poll() is None, "the bench ended before it was killed"
        assert time.monotonic() < deadline, "the bench journaled too few runs"
        time.sleep(0.01)


def test_a_bench_killed_at_eight_runs_at_once_asks_only_for_unfinished_runs(
    tmp_path: Path, serial: Serial
) -> None:
    out = tmp_path / "out"
    with BenchServer(latency=0.01) as server:
        server.hold_after = 3  # then every request waits: the bench is mid-grid when killed
        command = bench(server.base_url, out, "--concurrency", "8")
        child = subprocess.Popen(
            [sys.executable, "-m", "experiments", *command],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for_lines(out / JOURNAL_NAME, 3, child)
            os.kill(child.pid, signal.SIGKILL)
            assert child.wait(30) == -signal.SIGKILL
        finally:
            server.hold_after = None
            server.release.set()
            if child.poll() is None:
                child.kill()
                child.wait(30)
    finished = _journaled(out / JOURNAL_NAME)
    assert 3 <= finished < RUNS
    # The resumed bench asks a server of its own on the same URL (its journal names it): a
    # request the killed bench had sent, still in the first server's socket, is read by that
    # one, never counted as the resumed bench's (it was once: 16 asked for 13, at load 5).
    with BenchServer(latency=0.01, port=server.httpd.server_port) as resumed:
        assert main(command) == 0
    # each run asks one probe, last: only the runs not journaled asked again
    assert sum(is_probe(b) for b in resumed.bodies) == RUNS - finished
    for name in OUTPUTS:  # as an uninterrupted bench's
        assert (out / name).read_bytes() == (serial.out / name).read_bytes(), name
