"""The test processes' plot memo (tests/support/plot_memo.py) gives back a plot only for a view
it drew before (in this process, or stored by another), and draws again inside ``fresh()``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from support.plot_memo import KEEP, PlotMemo

from lab.report.plots import Plot


@dataclass
class _View:
    values: list[int]


def test_a_view_is_drawn_once_and_a_changed_view_again() -> None:
    drawn: list[list[int]] = []

    def render(view: _View) -> Plot:
        drawn.append(list(view.values))
        return Plot("p", f"caption {view.values}", bytes(view.values))

    memo = PlotMemo()
    once = memo.wrap(render)
    first = once(_View([1, 2]))
    assert once(_View([1, 2])) is first and memo.hits == 1
    assert once(_View([1, 3])).png == bytes([1, 3])
    with memo.fresh():
        again = once(_View([1, 2]))
    assert again == first and again is not first
    assert drawn == [[1, 2], [1, 3], [1, 2]]


def test_a_view_that_cannot_be_pickled_is_always_drawn() -> None:
    calls = []
    memo = PlotMemo()
    once = memo.wrap(lambda view: calls.append(view) or Plot("p", "c", b""))
    unpicklable = _View([1])
    unpicklable.values = lambda: None  # type: ignore[assignment]
    once(unpicklable)
    once(unpicklable)
    assert len(calls) == 2 and memo.hits == 0


def test_a_stored_drawing_is_read_by_a_later_process_and_old_ones_are_pruned(
    tmp_path: Path,
) -> None:
    drawn: list[list[int]] = []

    def render(view: _View) -> Plot:
        drawn.append(list(view.values))
        return Plot("p", f"caption {view.values}", bytes(view.values))

    stored = tmp_path / "plots"
    stored.mkdir()
    for old in range(KEEP):  # drawings of other views or code, stored before
        (stored / f"plot-{old:032d}.pickle").write_bytes(b"")
        os.utime(stored / f"plot-{old:032d}.pickle", (old, old))
    earlier, later = PlotMemo(), PlotMemo()
    earlier.stored = later.stored = stored
    first = earlier.wrap(render)(_View([1, 2]))
    assert later.wrap(render)(_View([1, 2])) == first  # read back, not drawn again
    assert (earlier.draws, later.draws, drawn) == (1, 0, [[1, 2]])
    with later.fresh():
        later.wrap(render)(_View([1, 2]))
    assert drawn == [[1, 2], [1, 2]]  # fresh() draws, whatever is stored
    kept = {p.name for p in stored.glob("plot-*.pickle")}
    assert len(kept) == KEEP and "plot-" + "0" * 32 + ".pickle" not in kept
