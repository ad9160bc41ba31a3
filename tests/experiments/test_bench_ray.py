"""``ctxlab bench --executor ray``: the grid's shards played as Ray tasks (a Ray instance of one
CPU on this machine, against a server on 127.0.0.1) and merged give byte for byte the tables of
one bench played here; without Ray installed the option is one sentence naming the extra."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support.bench_server import BenchServer

from experiments.x_bench.shards import CONVERSATIONS, MANIFEST
from lab.cli import main

GRID = ["--sizes", "2k", "--seeds", "1", "--langs", "zh,en"]
CONDITIONS = ["--conditions", "truncation,agentscope,ctxlab,masking"]
OUTPUTS = ("bench-runs.csv", "bench-kinds.csv", "bench.md", MANIFEST, CONVERSATIONS)


def bench(base_url: str, out: Path, *extra: str) -> list[str]:
    return [
        "bench", "--provider", "openai-compatible", "--base-url", base_url, "--model", "m",
        *GRID, *CONDITIONS, "--out", str(out), "--concurrency", "2", *extra,
    ]  # fmt: skip


@pytest.mark.slow  # starts a Ray instance (about 6 s) and plays the grid twice
def test_shards_played_as_ray_tasks_are_byte_for_byte_one_bench_played_here(
    tmp_path: Path,
) -> None:
    ray = pytest.importorskip(
        "ray", reason="Ray is not installed (the ray extra: pip install -e '.[ray]')"
    )
    with BenchServer() as server:
        assert main(bench(server.base_url, tmp_path / "here")) == 0
        ray.init(  # one CPU, Ray's smallest object store: light on a 2-core CI machine
            num_cpus=1,
            object_store_memory=80 * 1024 * 1024,
            include_dashboard=False,
            log_to_driver=False,
        )
        try:
            on_ray = bench(server.base_url, tmp_path / "ray", "--executor", "ray")
            assert main([*on_ray, "--ray-tasks", "3"]) == 0
        finally:
            ray.shutdown()
    for name in OUTPUTS:
        assert (tmp_path / "here" / name).read_bytes() == (tmp_path / "ray" / name).read_bytes()


def test_without_ray_the_executor_is_one_sentence_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    assert main(["bench", "--out", str(tmp_path / "o"), "--executor", "ray"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "needs Ray, the ray extra" in line and ".[ray]" in line
    assert not (tmp_path / "o").exists()


def test_ray_plays_every_shard_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("ray", reason="Ray is not installed (the ray extra)")
    command = ["bench", "--out", str(tmp_path / "o"), "--executor", "ray", "--shard", "1/2"]
    assert main(command) == 2
    assert "drop --shard" in capsys.readouterr().err
