"""X-COST's plot: cumulative prompt tokens with and without compaction, one panel per ledger."""

from __future__ import annotations

import math

from matplotlib.axes import Axes

from experiments.report.per_experiment.x_cost import LedgerRow, XCostView
from experiments.report.plots.canvas import ARTICLE, COMPACTION, OURS, Plot, new_figure, png

__all__ = ["x_cost_cumulative", "x_cost_plot"]


def _points(values: tuple[int | None, ...]) -> list[float]:
    return [math.nan if v is None else float(v) for v in values]


def _panel(axes: Axes, row: LedgerRow) -> None:
    ledger = row.ledger
    steps = list(range(1, len(ledger.cumulative_with) + 1))
    axes.plot(
        steps, _points(ledger.cumulative_with), marker="o", color=OURS, label="with compaction"
    )
    axes.plot(
        steps,
        _points(ledger.cumulative_without),
        marker="s",
        linestyle="--",
        color=ARTICLE,
        label="without (estimated)",
    )
    marks = sorted({c.request + 1 for c in ledger.compactions})
    for mark in marks:
        axes.axvline(mark - 0.5, color=COMPACTION, linewidth=0.8, linestyle=":")
    axes.set_xticks(steps)
    axes.set_ylim(bottom=0)
    axes.set_xlabel("request (a summary call is counted at the request it precedes)", fontsize=7)
    net = "usage missing" if row.net is None else f"net {row.net:+d}"
    axes.set_title(f"{row.label}: {net}", loc="left", fontsize=9)


def x_cost_cumulative(view: XCostView) -> bytes:
    """Cumulative prompt tokens per request, with compaction (requests + summary calls) and
    without it (requests + what each compaction removed), one panel per ledger."""
    with new_figure("X-COST_cumulative") as figure:
        panels = figure.subplots(1, max(len(view.ledgers), 1), squeeze=False)[0]
        for axes, row in zip(panels, view.ledgers, strict=False):
            _panel(axes, row)
        panels[0].set_ylabel("cumulative prompt tokens")
        panels[0].legend(loc="upper left", fontsize=7, frameon=False)
        return png(figure)


def x_cost_plot(view: XCostView) -> Plot:
    """``X-COST_cumulative`` with its caption."""
    caption = (
        "X-COST: cumulative prompt tokens with compaction (requests sent plus the summary "
        "calls) and without it (the same requests plus what compaction removed from them); "
        "dotted lines mark compactions; in E4 the last point is the compaction itself, which no "
        "request followed in the recording."
    )
    return Plot("X-COST_cumulative", caption, x_cost_cumulative(view))
