"""``ctxlab record --shard i/n`` and ``ctxlab record merge`` against a real OpenAI-compatible
server on 127.0.0.1 that serves requests concurrently: every recordable experiment recorded in
two shards, four cassettes at a time, then merged, gives byte for byte the cassettes of one
recording one at a time (but for the time stamp of the recording), and so does X-BENCH recorded
four at a time without shards (``--concurrency 4``, each cassette in a worker process; its
progress in the plan's order); merging is idempotent, and a shard of another recording is
refused in one sentence."""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.bench_server import BenchServer
from support.paths import ROOT

from experiments.x_bench import plan_slice, recording_plan
from experiments.x_bench.schema import Conversation
from lab.cli import main


@functools.cache
def first_slice() -> list[tuple[Conversation, str]]:
    """What ``--slice 1/18`` records (computed when a test asks: the plan generates the corpus,
    about 0.4 s of CPU that every worker paid at collection, for slow tests only)."""
    return plan_slice(recording_plan(), (1, 18))


EVERY = ["E2", "E3", "E4", "X-BENCH"]


def _record(base_url: str, folder: Path, *extra: str, experiments: list[str] = EVERY) -> str:
    """``ctxlab record`` into ``folder``, the cassettes alone (``--no-replay``: what is compared
    here is the cassettes; a replay of X-BENCH's was about 6 s of CPU per recording)."""
    command = [
        sys.executable, "-m", "experiments", "record", *experiments,
        "--provider", "openai-compatible", "--model", "m", "--base-url", base_url,
        "--slice", "1/18", "--cassettes", str(folder), "--out", str(folder.parent / "reports"),
        "--no-replay", *extra,
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "not replayed (--no-replay)" in done.stdout and not (folder.parent / "reports").exists()
    return done.stdout


def cassettes(folder: Path) -> dict[str, str]:
    """Each cassette's text, the recording's time stamp blanked."""
    stamp = re.compile(r'"recorded_at": "[^"]*"')
    return {
        p.relative_to(folder).as_posix(): stamp.sub('"recorded_at": ""', p.read_text("utf-8"))
        for p in sorted(folder.rglob("*.json"))
        if p.name != "record-shard.json"
    }


def _progress(output: str) -> list[str]:
    """The numbers of X-BENCH's cassettes in the order a recording's progress names them."""
    return re.findall(rf"X-BENCH \[(\d+)/{len(first_slice())}\]", output)


@pytest.mark.slow  # five recordings in subprocesses
def test_two_shards_recorded_side_by_side_and_merged_are_one_serial_recording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with BenchServer(latency=0.05) as server:
        serial = _record(server.base_url, tmp_path / "one" / "cassettes")
        assert server.most_in_flight == 1
        server.reset()
        # the cassettes recorded four at a time (each in a worker process) are those recorded
        # one at a time, and progress names them in the plan's order either way
        four = tmp_path / "four" / "cassettes"
        parallel = _record(server.base_url, four, "--concurrency", "4", experiments=["X-BENCH"])
        assert server.most_in_flight >= 2
        server.reset()
        for i in (1, 2):
            _record(server.base_url, tmp_path / f"s{i}" / "cassettes", "--shard", f"{i}/2",
                    "--concurrency", "4")  # fmt: skip
        assert server.most_in_flight >= 2  # E2, E3, E4 and X-BENCH's cassettes side by side
        other = tmp_path / "other" / "cassettes"
        _record(server.base_url, other, "--shard", "2/2", experiments=["E3"])
    one = cassettes(tmp_path / "one" / "cassettes")
    assert len(one) == 3 + len(first_slice()) and "E4  recorded in" in serial
    x_bench = {name: text for name, text in one.items() if name.startswith("X-BENCH/")}
    assert len(x_bench) == len(first_slice()) and cassettes(four) == x_bench
    numbers = [str(k) for k in range(1, len(first_slice()) + 1)]
    assert _progress(serial) == _progress(parallel) == numbers
    shards = [tmp_path / f"s{i}" / "cassettes" for i in (1, 2)]
    halves = [cassettes(s) for s in shards]
    assert halves[0] and halves[1] and not set(halves[0]) & set(halves[1])
    merged = tmp_path / "merged"
    assert main(["record", "merge", *map(str, shards), "--out", str(merged)]) == 0
    assert cassettes(merged) == one
    manifest = (merged / "record-shard.json").read_bytes()
    # idempotent: a shard given twice, or the merged folder merged again, adds nothing
    again = tmp_path / "again"
    assert main(["record", "merge", str(merged), *map(str, shards), str(shards[0]),
                 "--out", str(again)]) == 0  # fmt: skip
    assert cassettes(again) == one and (again / "record-shard.json").read_bytes() == manifest
    capsys.readouterr()
    refused = tmp_path / "refused"
    assert main(["record", "merge", str(shards[0]), str(other), "--out", str(refused)]) == 2
    error = capsys.readouterr().err
    assert "another recording" in error and "experiments E3 instead of E2,E3,E4,X-BENCH" in error
    assert len(error.strip().splitlines()) == 1 and not refused.exists()


def _shard(folder: Path, **changes: object) -> Path:
    """A shard folder holding one file ``E3/s/c.json`` and its manifest (no recording)."""
    from lab.record_shards import RecordShard, cassettes_of, write_manifest

    (folder / "E3" / "s").mkdir(parents=True)
    (folder / "E3" / "s" / "c.json").write_text(str(changes.pop("text", "{}")), encoding="utf-8")
    fields: dict[str, object] = {
        "ctxlab": "0.1.0", "provider": "deepseek", "model": "m", "experiments": ["E3"],
        "variant": "", "conditions": [], "slice": None, "max_tokens": None, "shard": (1, 2),
        "cassettes": cassettes_of(folder, ["E3"]),
    }  # fmt: skip
    write_manifest(folder, RecordShard(**{**fields, **changes}))  # type: ignore[arg-type]
    return folder


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"model": "other"}, "model other instead of m"),
        ({"ctxlab": "0.0.9"}, "ctxlab 0.0.9 instead of 0.1.0"),
        ({"max_tokens": 512}, "max_tokens 512 instead of none"),
        ({"shard": (2, 3)}, "a split into 3 shards instead of 2"),
        ({"shard": (2, 2), "text": "[]"}, "two different recordings of E3/s/c.json"),
    ],
)
def test_a_shard_of_another_recording_is_refused_in_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object], said: str
) -> None:
    first = _shard(tmp_path / "a")
    second = _shard(tmp_path / "b", **{"shard": (2, 2), **change})
    assert main(["record", "merge", str(first), str(second), "--out", str(tmp_path / "m")]) == 2
    error = capsys.readouterr().err
    assert said in error and len(error.strip().splitlines()) == 1
    assert not (tmp_path / "m").exists()


def test_a_missing_shard_a_changed_cassette_and_a_path_out_of_the_folder_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _shard(tmp_path / "a")
    out = str(tmp_path / "m")
    assert main(["record", "merge", str(first), "--out", out]) == 2
    assert "The shards 2/2 are missing" in capsys.readouterr().err
    second = _shard(tmp_path / "b", shard=(2, 2))
    (second / "E3" / "s" / "c.json").write_text("{ }", encoding="utf-8")
    assert main(["record", "merge", str(first), str(second), "--out", out]) == 2
    assert "missing or changed since it was recorded" in capsys.readouterr().err
    manifest = json.loads((second / "record-shard.json").read_text(encoding="utf-8"))
    manifest["cassettes"] = {"../../escape.json": "0" * 64}
    (second / "record-shard.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert main(["record", "merge", str(first), str(second), "--out", out]) == 2
    assert "which is not a cassette in it" in capsys.readouterr().err
    assert not (tmp_path / "m").exists() and not (tmp_path / "escape.json").exists()


def test_the_shard_of_a_cassette_depends_only_on_it_and_every_shard_is_used() -> None:
    from lab.record_shards import shard_of

    names = [f"zh-2k-s{n:02d}--full" for n in range(1, 41)]
    shards = [shard_of("X-BENCH", name, "m", 4) for name in names]
    assert shards == [shard_of("X-BENCH", name, "m", 4) for name in names]
    assert set(shards) == {1, 2, 3, 4}


@pytest.mark.slow  # a recording in a subprocess (its workers are forked: no server threads)
def test_an_experiment_that_fails_in_a_worker_stops_the_recording_in_one_sentence(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "cassettes"
    kept = folder / "E3" / "openai-compatible-m" / "rounds.json"
    kept.parent.mkdir(parents=True)
    kept.write_text("{}\n", encoding="utf-8")  # E3 is there already: no --force, refused
    with BenchServer(latency=0.05) as server:
        command = [
            sys.executable, "-m", "experiments", "record", "E2", "E3",
            "--provider", "openai-compatible", "--model", "m", "--base-url", server.base_url,
            "--cassettes", str(folder), "--out", str(tmp_path / "reports"), "--concurrency", "2",
        ]  # fmt: skip
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert "exists already; pass --force to re-record it" in line
    assert "E2  recorded in" in done.stdout  # the job before it, printed in order
    assert kept.read_text(encoding="utf-8") == "{}\n"
