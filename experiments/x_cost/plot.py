"""X-COST's plot: cumulative prompt tokens with and without compaction, one panel per ledger,
one row of panels per recorded set."""

from __future__ import annotations

import math
from collections.abc import Sequence

from matplotlib.axes import Axes

from experiments.x_cost.view import LedgerRow, XCostView
from lab import ARTICLE, COMPACTION, OURS, Margins, Plot, PlotSize, new_figure, plot_of

__all__ = ["MARGINS", "SIZE", "net_text", "x_cost_plot"]

SIZE: PlotSize = (9.6, 3.2)
"""Its size in inches: width, and the height of one panel (:data:`~lab.report.plots.PlotSize`)."""
MARGINS = Margins(left=0.66, right=0.08, top=0.4, bottom=0.46, between=0.8, across=0.6)
"""The y axis' label on the left of each row, two title lines above each panel, its request
numbers and x label under it; the tokens' tick labels between the panels of a row."""


def _points(values: tuple[int | None, ...]) -> list[float]:
    return [math.nan if v is None else float(v) for v in values]


def net_text(net: int | None) -> str:
    """A ledger's net, with its unit: ``net -894 tokens``."""
    return "net: usage missing" if net is None else f"net {net:+,d} tokens"


def _panel(axes: Axes, model: str, row: LedgerRow) -> None:
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
    axes.set_xlabel("request number", fontsize=8)
    axes.set_title(f"{model}\n{row.label}: {net_text(row.net)}", loc="left", fontsize=8)


def x_cost_plot(sets: Sequence[tuple[str, XCostView]]) -> Plot:
    """``X-COST_cumulative``: cumulative prompt tokens per request, with compaction (requests +
    summary calls) and without it (requests + what each compaction removed); one panel per
    ledger, one row per recorded set."""
    columns = max([len(v.ledgers) for _, v in sets] + [1])
    with new_figure(SIZE, len(sets), margins=MARGINS) as figure:
        grid = MARGINS.panels(figure, len(sets), columns)
        for panels, (model, view) in zip(grid, sets, strict=True):
            for axes, row in zip(panels, view.ledgers, strict=False):
                _panel(axes, model, row)
            for axes in panels[len(view.ledgers) :]:
                axes.axis("off")
            panels[0].set_ylabel("cumulative prompt tokens")
            panels[0].legend(
                loc="upper left", fontsize=7, frameon=False, title=model, title_fontsize=7
            )
        caption = (
            "X-COST: cumulative prompt tokens (provider tokens) with compaction (requests sent "
            "plus the summary calls) and without it (the same requests plus what compaction "
            f"removed from them), one row per recorded model ({', '.join(m for m, _ in sets)}); "
            "dotted lines mark compactions; "
            "net = tokens saved by later requests minus the summary call's tokens; in E4 the last "
            "point is the compaction itself, which no request followed in the recording."
        )
        return plot_of("X-COST_cumulative", "X-COST", caption, figure)
