"""``ctxlab bench --shard i/n`` and ``ctxlab bench merge``: two shards merged are byte for byte
one unsharded bench, merging again changes nothing, and a shard of another grid or a missing
shard is refused in one sentence; ``--cache DIR``: a second bench (or another shard) asks the
server nothing it asked before, and the cache can be deleted at any time."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.bench_server import BenchServer

from experiments.x_bench.shards import CONVERSATIONS, MANIFEST
from lab.cli import main
from lab.request_cache import canonical_key

GRID = ["--sizes", "2k", "--seeds", "1-2", "--langs", "zh,en"]
CONDITIONS = ["--conditions", "truncation,agentscope,ctxlab,masking"]
OUTPUTS = ("bench-runs.csv", "bench-kinds.csv", "bench.md", MANIFEST, CONVERSATIONS)


def bench(base_url: str, out: Path, *extra: str) -> list[str]:
    return [
        "bench", "--provider", "openai-compatible", "--base-url", base_url, "--model", "m",
        *GRID, *CONDITIONS, "--out", str(out), "--concurrency", "4", *extra,
    ]  # fmt: skip


def _same(one: Path, other: Path) -> None:
    for name in OUTPUTS:
        assert (one / name).read_bytes() == (other / name).read_bytes(), name


def _runs(folder: Path) -> int:
    return len(json.loads((folder / MANIFEST).read_text("utf-8"))["runs"])


@dataclasses.dataclass(frozen=True)
class Whole:
    """The module's server and the whole grid benched on it once, with a ``--cache``: its
    folder, its cache, the requests it asked (the preflight's ping left out) and its stderr."""

    server: BenchServer
    out: Path
    cache: Path
    asked: int
    err: str


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Whole]:
    """One server for the module (a cache entry and a journal line name the server they were
    asked of) and the unsharded bench the tests compare with, made once: they only read it."""
    folder = tmp_path_factory.mktemp("whole")
    err = io.StringIO()
    with BenchServer() as server:
        with contextlib.redirect_stderr(err):
            assert main(bench(server.base_url, folder / "all", "--cache", str(folder / "c"))) == 0
        yield Whole(server, folder / "all", folder / "c", server.seen - 1, err.getvalue())


def test_two_shards_merged_are_one_bench_and_another_grid_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], whole: Whole
) -> None:
    server = whole.server
    for i in (1, 2):
        assert main(bench(server.base_url, tmp_path / f"s{i}", "--shard", f"{i}/2")) == 0
    other = ["--conditions", "truncation,masking", "--shard", "2/2"]
    assert main([*bench(server.base_url, tmp_path / "other"), *other]) == 0
    assert _runs(tmp_path / "s1") + _runs(tmp_path / "s2") == _runs(whole.out) == 16
    assert _runs(tmp_path / "s1") and _runs(tmp_path / "s2")
    shards = [str(tmp_path / "s1"), str(tmp_path / "s2")]
    assert main(["bench", "merge", *shards, "--out", str(tmp_path / "merged")]) == 0
    _same(whole.out, tmp_path / "merged")
    # idempotent: a shard given twice, the merged folder merged again
    again = [*shards, shards[0], str(tmp_path / "merged")]
    assert main(["bench", "merge", *again, "--out", str(tmp_path / "again")]) == 0
    _same(whole.out, tmp_path / "again")
    capsys.readouterr()
    mixed = [shards[0], str(tmp_path / "other")]
    assert main(["bench", "merge", *mixed, "--out", str(tmp_path / "no")]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "is a shard of another bench" in line and "conditions truncation,masking" in line
    assert main(["bench", "merge", shards[1], "--out", str(tmp_path / "no")]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "The shards 1/2 are missing" in line
    assert not (tmp_path / "no").exists()


def _cache_line(err: str) -> tuple[int, int]:
    found = re.search(r"(\d+) hit\(s\), (\d+) miss\(es\)", err)
    assert found is not None, err
    return int(found[1]), int(found[2])


def test_the_cache_answers_what_was_asked_before_and_may_be_deleted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], whole: Whole
) -> None:
    cache = Path(shutil.copytree(whole.cache, tmp_path / "cache"))  # the module's stays whole
    server, asked = whole.server, whole.asked  # the preflight's ping is never cached
    assert _cache_line(whole.err) == (0, asked)
    server.reset()
    for i in (1, 2):  # shards of the same grid share it: nothing is asked again
        shard = ["--shard", f"{i}/2", "--cache", str(cache)]
        assert main(bench(server.base_url, tmp_path / f"s{i}", *shard)) == 0
    assert server.seen == 2  # the two pings
    hits = [_cache_line(part) for part in capsys.readouterr().err.split("ctxlab: request")[1:]]
    assert sum(h for h, _ in hits) == asked and all(m == 0 for _, m in hits)
    shutil.rmtree(cache)
    server.reset()
    assert main(bench(server.base_url, tmp_path / "third", "--cache", str(cache))) == 0
    assert server.seen - 1 == asked
    merged = [str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "merged")]
    assert main(["bench", "merge", *merged]) == 0
    _same(whole.out, tmp_path / "merged")
    _same(whole.out, tmp_path / "third")


def test_the_cache_key_is_the_canonical_request_and_its_replicate() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0}
    key = canonical_key("127.0.0.1:8080", body, 0)
    reordered = dict(reversed(list(body.items())))
    assert canonical_key("127.0.0.1:8080", {**reordered, "user": "me"}, 0) == key
    assert canonical_key("127.0.0.1:8080", body, 1) != key
    assert canonical_key("127.0.0.1:8080", {**body, "temperature": 1}, 0) != key
    assert canonical_key("api.deepseek.com", body, 0) != key
