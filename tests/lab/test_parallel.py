"""Pieces of a run side by side (lab/parallel.py): real forked workers, results in
the items' order, the heaviest started first, errors passed on, and never a fork beside another
thread; ``ctxlab run --jobs 2`` writes the same bytes as ``--jobs 1`` (CI's reports step runs
the two jobs; the slow test here the one job)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from support.paths import CTXLAB, ROOT

from harness import ConfigError
from lab.parallel import default_jobs, heaviest_first, in_order, workers_for
from lab.registry import EXPERIMENTS

# The checks that need a process with one thread run in a fresh interpreter: a pytest-xdist
# worker has threads of its own, and there in_order runs everything in-process, as it should.
FORKED = """
import json, os, time
from lab.parallel import in_order

def work(item):
    name, seconds = item
    time.sleep(seconds)
    if name == "bad":
        raise ValueError("bad item")
    return name, os.getpid(), seconds

items = [("light", 0.0), ("heavy", 0.2), ("light2", 0.0)]
done = list(in_order(work, items, 2, weight=lambda item: item[1]))
try:
    list(in_order(work, [("ok", 0.0), ("bad", 0.0)], 2))
    error = ""
except ValueError as exc:
    error = str(exc)
print(json.dumps({"parent": os.getpid(), "done": done, "error": error}))
"""


# A run's workers start with what the parent imported before it forked them: the recorder's
# vcrpy and the report's libraries (numpy among them), each imported once in the parent.
IMPORTED_IN_WORKERS = """
import json, sys
from pathlib import Path
import experiments  # hands lab the suite
import lab.runner as runner
from lab.experiment import RunSettings

def probe(job):  # each worker's piece: which libraries it found imported
    found = [m for m in ("vcr", "httpx", "numpy", "pandas", "matplotlib") if m in sys.modules]
    return runner._Outcome(job[0], None, ",".join(found), ())

runner._run_quietly = probe
settings = RunSettings(cassette_root=Path("cassettes"))
summary = runner.run_experiments(["E1", "E3"], Path(sys.argv[1]), settings, jobs=2)
print(json.dumps(dict(summary.failures)))
"""


@pytest.mark.slow  # a fresh interpreter importing pandas and matplotlib: about 2 s of CPU
@pytest.mark.skipif(sys.platform == "win32", reason="no fork")
def test_a_run_imports_what_its_workers_need_once_before_forking(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", IMPORTED_IN_WORKERS, str(tmp_path / "out")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout.splitlines()[-1]) == {
        "E1": "vcr,httpx,numpy,pandas,matplotlib",
        "E3": "vcr,httpx,numpy,pandas,matplotlib",
    }


def _forked() -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", FORKED], cwd=ROOT, capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.mark.skipif(sys.platform == "win32", reason="no fork")
def test_workers_are_forked_processes_and_results_keep_the_items_order() -> None:
    result = _forked()
    done = result["done"]
    assert isinstance(done, list)
    assert [name for name, _, _ in done] == ["light", "heavy", "light2"]
    assert {pid for _, pid, _ in done}.isdisjoint({result["parent"]})
    assert result["error"] == "bad item"


def test_the_heaviest_pieces_start_first() -> None:
    assert heaviest_first([0.1, 4.0, 0.1, 3.0], float) == [1, 3, 0, 2]
    ids = list(EXPERIMENTS)
    first = [ids[n] for n in heaviest_first(ids, lambda i: EXPERIMENTS[i].weight)][:2]
    assert first == ["X-BENCH", "X-THRASH"]  # the two that are most of a run's CPU


def test_one_job_or_one_piece_or_another_thread_runs_here() -> None:
    assert workers_for(1, 5) == 0
    assert workers_for(4, 1) == 0
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert workers_for(2, 5) == 0  # never fork beside a running thread
        pid = os.getpid()
        assert list(in_order(lambda n: (n, os.getpid()), [1, 2, 3], 2)) == [
            (1, pid),
            (2, pid),
            (3, pid),
        ]
    finally:
        stop.set()
        other.join()


def _experiment_files(jobs: int, out: Path) -> dict[str, bytes]:
    """``ctxlab run E1 E3 E5 --jobs N``'s files of those experiments (the tables and the
    index list only the experiments run, so they are left out)."""
    subprocess.run(
        [*CTXLAB, "run", "E1", "E3", "E5", "--jobs", str(jobs), "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return {
        p.name: p.read_bytes()
        for p in sorted(out.iterdir())
        if p.is_file() and p.name.startswith(("E1", "E3", "E5"))
    }


@pytest.mark.slow
def test_two_jobs_write_the_same_reports_as_one(tmp_path: Path) -> None:
    # CI's reports step runs `ctxlab run` with the default jobs (2 on any machine of 2 cores
    # or more) and requires reports/ byte for byte: one run here with one job, its files equal
    # to reports/', shows the two write the same bytes. Where the default is one job, the
    # run with two is made here.
    one = _experiment_files(1, tmp_path / "jobs-1")
    assert "E5_cadence.png" in one and "E1.json" in one
    other = _experiment_files(2, tmp_path / "jobs-2") if default_jobs() < 2 else None
    for name in ("E1", "E3", "E5"):  # what the committed report holds of each
        committed = {p.name for p in (ROOT / "reports").glob(f"{name}*") if p.is_file()}
        assert committed == {n for n in one if n.startswith(name)}, name
    different = [n for n in one if one[n] != (ROOT / "reports" / n).read_bytes()]
    different += [n for n in (other or {}) if other and other[n] != one[n]]
    assert different == []


def test_ctxlab_jobs_sets_the_default_and_a_bad_value_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CTXLAB_JOBS", "3")
    assert default_jobs() == 3
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("CTXLAB_JOBS", bad)
        with pytest.raises(ConfigError, match="CTXLAB_JOBS must be a whole number"):
            default_jobs()
    monkeypatch.delenv("CTXLAB_JOBS")
    assert 1 <= default_jobs() <= 2
