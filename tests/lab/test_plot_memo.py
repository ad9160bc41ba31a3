"""The test processes' plot memo (tests/plot_memo.py) gives back a plot only for a view it drew
before, and draws again inside ``fresh()``."""

from __future__ import annotations

from dataclasses import dataclass

from support.plot_memo import PlotMemo

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
