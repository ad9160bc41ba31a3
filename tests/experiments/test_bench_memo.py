"""X-BENCH replayed once for its cassettes and code (tests/support/bench_memo.py): a view is
remembered only for an ordinary reproduction of the same cassettes and code, and xdist workers
and later sessions share it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from support.bench_memo import KEEP, PINS, BenchMemo, code_digest, replay_key
from support.bench_runs import bench_run, bench_view
from support.paths import ROOT

import experiments.x_bench as x_bench
from experiments.x_bench.conditions import CONDITIONS
from experiments.x_bench.corpus import generate
from experiments.x_bench.runs import FreeRuns
from experiments.x_bench.view import XBenchView
from lab import to_data
from lab.experiment import RunSettings

VIEW = bench_view([bench_run("full", "c1", 1.0), bench_run("gate", "c1", 0.5)])


class Replays:
    def __init__(self) -> None:
        self.settings: list[RunSettings] = []
        self.free_runs: list[FreeRuns | None] = []

    def __call__(self, settings: RunSettings, free_runs: FreeRuns | None = None) -> XBenchView:
        self.settings.append(settings)
        self.free_runs.append(free_runs)
        return VIEW


def _one_set(tmp_path: Path) -> Path:
    source = next((ROOT / "cassettes" / "X-BENCH").iterdir())
    target = tmp_path / "cassettes" / "X-BENCH" / source.name
    target.mkdir(parents=True)
    for cassette in sorted(source.glob("*.json"))[:3]:
        shutil.copy(cassette, target / cassette.name)
    return tmp_path / "cassettes"


def test_the_key_follows_the_cassettes_bytes_and_only_an_ordinary_replay_has_one(
    tmp_path: Path,
) -> None:
    root = _one_set(tmp_path)
    key = replay_key(RunSettings(root))
    assert key is not None and key == replay_key(RunSettings(root, progress=lambda _: None))
    assert replay_key(RunSettings(root, cassette_match="order")) is None
    assert replay_key(RunSettings(root, conditions=("ctxlab",))) is None
    assert replay_key(RunSettings(tmp_path / "elsewhere")) != key
    cassette = next((root / "X-BENCH").rglob("*.json"))
    cassette.write_bytes(cassette.read_bytes() + b" ")
    assert replay_key(RunSettings(root)) != key


def test_a_view_is_replayed_once_unless_fresh_or_in_order(tmp_path: Path) -> None:
    replays, memo = Replays(), BenchMemo()
    measure = memo.wrap(replays)
    settings = RunSettings(tmp_path)
    assert measure(settings) is measure(RunSettings(tmp_path)) is VIEW
    assert len(replays.settings) == 1
    measure(RunSettings(tmp_path, cassette_match="order"))
    with memo.fresh():
        measure(settings)
    assert len(replays.settings) == 3


def test_only_an_ordinary_replay_gets_the_processs_model_free_plays(tmp_path: Path) -> None:
    replays, memo = Replays(), BenchMemo()
    measure = memo.wrap(replays)
    measure(RunSettings(tmp_path / "no-cassettes"))
    measure(RunSettings(_one_set(tmp_path)))  # another key: replayed, with the same plays
    measure(RunSettings(tmp_path, cassette_match="order"))
    with memo.fresh():
        measure(RunSettings(tmp_path / "fresh"))
    own = FreeRuns()
    measure(RunSettings(tmp_path / "own"), own)  # a caller's own plays are its own
    assert replays.free_runs == [memo.free_runs, memo.free_runs, None, None, own]


def test_a_measure_given_the_plays_of_another_plays_none_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    one = [generate(1, "2k", "en")]
    monkeypatch.setattr(x_bench, "bench_conversations", lambda: one)
    monkeypatch.setattr(x_bench, "heldout_conversations", lambda: [])
    settings = RunSettings(tmp_path / "no-cassettes")
    shared = FreeRuns()
    first = x_bench.measure.__wrapped__(settings, shared)  # type: ignore[attr-defined]
    played = shared.played
    assert played == sum(not c.needs_model for c in CONDITIONS.values())
    again = x_bench.measure.__wrapped__(settings, shared)  # type: ignore[attr-defined]
    assert shared.played == played and to_data(again) == to_data(first)
    alone = x_bench.measure.__wrapped__(settings)  # type: ignore[attr-defined]
    assert shared.played == played and to_data(alone) == to_data(first)


def test_workers_sharing_a_folder_replay_once(tmp_path: Path) -> None:
    replays = Replays()
    first, second = BenchMemo(), BenchMemo()
    first.shared = second.shared = tmp_path / "shared"
    settings = RunSettings(tmp_path / "no-cassettes")
    assert first.wrap(replays)(settings) == VIEW
    assert second.wrap(replays)(settings) == VIEW  # read back from the first one's file
    assert (first.replays, second.replays, len(replays.settings)) == (1, 0, 1)


def _code_tree(root: Path) -> Path:
    for folder in ("harness", "lab", "experiments"):
        (root / folder).mkdir(parents=True)
        (root / folder / "module.py").write_text("X = 1\n", encoding="utf-8")
    return root


def test_the_key_follows_every_code_folder_a_replay_runs(tmp_path: Path) -> None:
    """lab/ replays the cassettes (its recorder, its runner), so its files are code of the
    replay too: a stored view must not outlive a change to any of them."""
    root = _code_tree(tmp_path / "tree")
    before = code_digest(root)
    for folder in ("harness", "lab", "experiments"):
        (root / folder / "module.py").write_text(f"X = '{folder}'\n", encoding="utf-8")
        code_digest.cache_clear()
        assert code_digest(root) != before, folder
        before = code_digest(root)


def test_the_key_follows_the_files_that_pin_what_is_installed(tmp_path: Path) -> None:
    """A stored view outlives the session (pytest's cache folder): a changed pin in
    ``pyproject.toml`` or ``constraints.txt`` must miss it, not serve the old view."""
    root = _code_tree(tmp_path / "tree")
    code_digest.cache_clear()
    absent = code_digest(root)
    for pin in PINS:
        (root / pin).write_text("httpx==0.27.0\n", encoding="utf-8")
        code_digest.cache_clear()
        assert code_digest(root) != absent, pin
        before = code_digest(root)
        (root / pin).write_text("httpx==0.28.1\n", encoding="utf-8")
        code_digest.cache_clear()
        assert code_digest(root) != before, pin
        absent = code_digest(root)
    code_digest.cache_clear()


def test_a_later_session_reads_the_stored_view_and_old_views_are_pruned(
    tmp_path: Path,
) -> None:
    shared = tmp_path / "cache"
    replays = Replays()
    for old in range(KEEP + 2):  # views of other cassettes or code, stored before
        shared.mkdir(exist_ok=True)
        (shared / f"x-bench-{old:032d}.json").write_text("{}", encoding="utf-8")
        os.utime(shared / f"x-bench-{old:032d}.json", (old, old))
    earlier, later = BenchMemo(), BenchMemo()
    earlier.shared = later.shared = shared
    settings = RunSettings(tmp_path / "no-cassettes")
    assert earlier.wrap(replays)(settings) == VIEW
    assert later.wrap(replays)(settings) == VIEW  # a new session: read, not replayed
    assert (earlier.replays, later.replays, len(replays.settings)) == (1, 0, 1)
    stored = sorted(p.name for p in shared.glob("x-bench-*.json"))
    assert len(stored) == KEEP and f"x-bench-{KEEP + 1:032d}.json" in stored
    assert "x-bench-" + "0" * 32 + ".json" not in stored  # the oldest went first
