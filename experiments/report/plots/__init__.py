"""PNG plots of the experiments, byte-reproducible: Agg, fixed size and dpi, no metadata.

One module per kind of plot: :mod:`.strip` (E1's messages), :mod:`.lines` (E2's memory
files), :mod:`.bars` (E3's context, E4's cached tokens) and :mod:`.heatmap` (E5's cadence
grid); :mod:`.canvas` holds what they share (sizes, style, palette, the PNG writer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from experiments.report.per_experiment import E1View, E2View, E3View, E4View, E5View, View
from experiments.report.per_experiment.x_cost import XCostView
from experiments.report.plots.bars import e3_plot, e4_plot
from experiments.report.plots.canvas import DPI, PLOT_FONT, PLOT_SIZES, Plot
from experiments.report.plots.cost import x_cost_plot
from experiments.report.plots.heatmap import e5_plot
from experiments.report.plots.lines import e2_plot
from experiments.report.plots.strip import KIND_COLOURS, e1_plot

__all__ = ["DPI", "KIND_COLOURS", "PLOTS", "PLOT_FONT", "PLOT_SIZES", "Plot", "build_plots"]

PLOTS: tuple[tuple[str, type, Callable[[Any], Plot]], ...] = (
    ("E1", E1View, e1_plot),
    ("E2", E2View, e2_plot),
    ("E3", E3View, e3_plot),
    ("E4", E4View, e4_plot),
    ("E5", E5View, e5_plot),
    ("X-COST", XCostView, x_cost_plot),
)
"""Each experiment with a plot: its id, the view its plot needs, and the plot's renderer."""


def build_plots(views: Mapping[str, View]) -> list[Plot]:
    """The plots of the experiments whose views are present, sorted by name."""
    plots = [
        render(view)
        for key, view_type, render in PLOTS
        if isinstance(view := views.get(key), view_type)
    ]
    return sorted(plots, key=lambda p: p.name)
