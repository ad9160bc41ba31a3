"""A scripted experiment's view measured once for its code (tests/support/scripted_memo.py):
the processes sharing a folder (xdist workers, later sessions) measure it once and read it back;
changed code misses the stored view; inside ``fresh()``, or in another process, every call
measures."""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
import support.scripted_memo as scripted_memo
from support.scripted_memo import MEMOS, ScriptedMemo

from experiments import e5


@dataclass(frozen=True)
class Grid:
    cells: tuple[int, ...]
    note: str


class Scripted(ModuleType):
    """A stand-in for a scripted experiment's module, counting its measurings."""

    def __init__(self) -> None:
        super().__init__("experiments.e9")
        self.calls = 0

    def measure(self) -> Grid:
        self.calls += 1
        return Grid((1, 2, 3), "measured")


def _installed(module: Scripted, shared: Path | None) -> ScriptedMemo:
    memo = ScriptedMemo(module, Grid)
    memo.install(shared)
    return memo


def test_processes_sharing_a_folder_measure_once(tmp_path: Path) -> None:
    module = Scripted()
    first = _installed(module, tmp_path / "shared")
    view = module.measure()
    assert module.measure() is view
    second = ScriptedMemo(module, Grid)  # another worker, or a later session
    second.shared = tmp_path / "shared"
    assert second.wrap(inspect.unwrap(module.measure))() == view == Grid((1, 2, 3), "measured")
    assert (first.measured, second.measured, module.calls) == (1, 0, 1)
    assert [p.name[:3] for p in (tmp_path / "shared").glob("*.json")] == ["e9-"]


def test_changed_code_misses_the_stored_view(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = Scripted()
    memo = _installed(module, tmp_path / "shared")
    module.measure()
    monkeypatch.setattr(scripted_memo, "code_digest", lambda: "changed code")
    module.measure()
    again = ScriptedMemo(module, Grid)
    again.shared = tmp_path / "shared"
    again.wrap(inspect.unwrap(module.measure))()  # the changed code's view, stored
    assert (memo.measured, again.measured, module.calls) == (2, 0, 2)


def test_fresh_another_process_or_no_memo_measures_again(tmp_path: Path) -> None:
    module = Scripted()
    memo = _installed(module, tmp_path / "shared")
    module.measure()
    with memo.fresh():
        module.measure()
    memo.owner = os.getpid() + 1  # as a forked worker sees it
    module.measure()
    assert module.calls == 3
    before = module.measure
    uninstall = ScriptedMemo(module, Grid).install(None)
    assert module.measure is not before
    uninstall()
    assert module.measure is before


def test_the_session_measures_e5_through_its_memo() -> None:
    """The root conftest installs the memo: E5's claims, report and replay tests share one
    view (the measuring itself is tested unwrapped: test_views.py)."""
    assert MEMOS and MEMOS[0].module is e5
    assert inspect.unwrap(e5.measure) is not e5.measure
    assert e5.measure() is e5.measure()
