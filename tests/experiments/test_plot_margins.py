"""The plots laid out from fixed margins (:class:`lab.Margins`, no layout engine): drawn from
the committed reports' views, no text they draw leaves the figure, lies on another text, or
lies on a panel it does not belong to. Constrained layout used to guarantee this by measuring
every text before each draw; the margins are now fixed, so this test is what holds them to it.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from matplotlib.backend_bases import RendererBase
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from experiments.e1.plot import e1_plot
from experiments.e2.plot import e2_plot
from experiments.e3.plot import e3_plot
from experiments.e4.plot import e4_plot
from experiments.e5.plot import e5_plot
from experiments.x_bench.plot import x_bench_plot
from experiments.x_cost.plot import x_cost_plot
from lab.project import SOURCE_ROOT
from lab.report import recorded_views
from lab.report.plots import canvas
from lab.report.tables import load_inputs

PLOTS: dict[str, tuple[Callable[[Any], object], bool]] = {
    "E1": (e1_plot, False),
    "E2": (e2_plot, True),
    "E3": (e3_plot, True),
    "E4": (e4_plot, True),
    "E5": (e5_plot, False),
    "X-COST": (x_cost_plot, True),
    "X-BENCH": (x_bench_plot, False),
}
"""Each plot drawn from fixed margins, and whether it is given every recorded set."""
SLACK = 1.0
"""Pixels two extents may share (anti-aliasing) before they overlap."""


@pytest.fixture(scope="module")
def views() -> dict[str, Any]:
    return recorded_views(load_inputs(SOURCE_ROOT / "reports"))


@dataclasses.dataclass
class Drawn:
    """A figure as drawn, with every non-empty text it drew and its extent."""

    figure: Figure | None = None
    texts: list[tuple[Text, Bbox]] = dataclasses.field(default_factory=list)


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[Drawn]:
    """What the next plot drew: its figure (caught where it becomes a PNG) and its texts."""
    seen = Drawn()
    draw_text, png = Text.draw, canvas.png

    def recording_draw(text: Text, renderer: RendererBase) -> None:
        draw_text(text, renderer)
        if text.get_visible() and text.get_text().strip():
            seen.texts.append((text, text.get_window_extent(renderer)))

    def caught(figure: Figure) -> bytes:
        # laid out and its texts drawn (so measured) as for the PNG, without the pixels
        seen.figure = figure
        figure.set_dpi(canvas.DPI)
        figure.draw_without_rendering()
        return b""

    monkeypatch.setattr(Text, "draw", recording_draw)
    for module in [m for name, m in sys.modules.items() if name.startswith("experiments.")]:
        if getattr(module, "png", None) is png:
            monkeypatch.setattr(module, "png", caught)
    monkeypatch.setattr(canvas, "png", caught)
    yield seen


def _draw(key: str, views: dict[str, Any], seen: Drawn) -> Drawn:
    render, every_set = PLOTS[key]
    render(views[key] if every_set else views[key][0][1])
    assert seen.figure is not None and seen.texts, f"{key}'s plot drew no text"
    return seen


def _overlap(a: Bbox, b: Bbox) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > SLACK and min(a.y1, b.y1) - max(a.y0, b.y0) > SLACK


def misplaced(seen: Drawn) -> list[str]:
    """Each text outside the figure, on another text, or on a panel it does not belong to."""
    assert seen.figure is not None
    frame, panels = seen.figure.bbox, [a for a in seen.figure.axes if a.get_visible()]
    found = []
    for n, (text, box) in enumerate(seen.texts):
        label = repr(text.get_text())
        if box.x0 < frame.x0 - SLACK or box.x1 > frame.x1 + SLACK:
            found.append(f"{label} leaves the figure sideways")
        if box.y0 < frame.y0 - SLACK or box.y1 > frame.y1 + SLACK:
            found.append(f"{label} leaves the figure at the top or bottom")
        found += [
            f"{label} lies on {other.get_text()!r}"
            for other, its in seen.texts[n + 1 :]
            if _overlap(box, its)
        ]
        found += [
            f"{label} lies on another panel"
            for axes in panels
            if axes is not text.axes and _overlap(box, axes.bbox)
        ]
    return found


@pytest.mark.parametrize("key", list(PLOTS))
def test_no_text_is_clipped_or_covers_another(
    key: str, views: dict[str, Any], drawn: Drawn
) -> None:
    assert misplaced(_draw(key, views, drawn)) == []


def test_margins_too_narrow_are_caught(
    views: dict[str, Any], drawn: Drawn, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check can fail: E2 without room on the left draws its y axis' label off the
    figure, stacked X-COST panels without room between them draw titles on panels, and
    X-BENCH's upper panels closer together draw the left one's legend on the right one's
    condition names."""
    from experiments.e2 import plot as e2
    from experiments.x_bench import plot as x_bench
    from experiments.x_cost import plot as x_cost

    monkeypatch.setattr(e2, "MARGINS", dataclasses.replace(e2.MARGINS, left=0.1))
    assert any("leaves the figure sideways" in m for m in misplaced(_draw("E2", views, drawn)))
    drawn.texts.clear()
    monkeypatch.setattr(x_cost, "MARGINS", dataclasses.replace(x_cost.MARGINS, between=0.1))
    assert any("lies on" in m for m in misplaced(_draw("X-COST", views, drawn)))
    drawn.texts.clear()
    monkeypatch.setattr(x_bench, "MARGINS", dataclasses.replace(x_bench.MARGINS, across=2.2))
    assert any("lies on" in m for m in misplaced(_draw("X-BENCH", views, drawn)))
