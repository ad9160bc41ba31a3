"""A run collects garbage less often (lab/gc_tuning.py): inside, the youngest generation's
threshold is raised and what existed before is frozen; after it, whatever the body raised, the
process's collector is as it was; a cycle made inside is still freed; and ``ctxlab run`` goes
through it."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

import lab.runner
from lab.gc_tuning import YOUNG_THRESHOLD, fewer_collections


def test_inside_the_threshold_is_raised_and_what_existed_is_frozen() -> None:
    before = gc.get_threshold()
    frozen_before = gc.get_freeze_count()
    with fewer_collections():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
        assert gc.get_freeze_count() > frozen_before
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == frozen_before


def test_the_collector_is_restored_when_the_body_raises() -> None:
    before = gc.get_threshold()
    frozen_before = gc.get_freeze_count()
    with pytest.raises(RuntimeError), fewer_collections(young=1234):
        assert gc.get_threshold()[0] == 1234
        raise RuntimeError("the run failed")
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == frozen_before


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_a_cycle_made_inside_is_still_freed() -> None:
    with fewer_collections():
        a, b = _Node(), _Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        gc.collect()
        assert gone() is None


def test_run_experiments_replays_with_fewer_collections(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The runner enters it around the whole run (the thresholds seen by the experiment)."""
    seen: list[int] = []

    def run_each(chosen: object, settings: object, jobs: int = 1) -> tuple[list, list]:
        seen.append(gc.get_threshold()[0])
        return [], []

    monkeypatch.setattr(lab.runner, "_run_each", run_each)
    from lab.experiment import RunSettings

    lab.runner.run_experiments(
        ["E1"], tmp_path / "reports", RunSettings(cassette_root=tmp_path / "cassettes")
    )
    assert seen == [YOUNG_THRESHOLD]
