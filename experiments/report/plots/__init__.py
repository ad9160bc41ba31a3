"""PNG plots of the experiments, byte-reproducible: Agg, fixed size and dpi, no metadata.

One module per kind of plot: :mod:`.strip` (E1's messages), :mod:`.lines` (E2's memory
files), :mod:`.bars` (E3's context, E4's cached tokens) and :mod:`.heatmap` (E5's cadence
grid); :mod:`.canvas` holds what they share (sizes, style, palette, the PNG writer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from experiments.report.per_experiment import E1View, E2View, E3View, E4View, E5View, View
from experiments.report.per_experiment.x_cost import XCostView
from experiments.report.plots.bars import e3_plot, e4_plot
from experiments.report.plots.canvas import DPI, PLOT_FONT, PLOT_SIZES, Plot
from experiments.report.plots.cost import x_cost_plot
from experiments.report.plots.heatmap import e5_plot
from experiments.report.plots.lines import e2_plot
from experiments.report.plots.strip import KIND_COLOURS, e1_plot

__all__ = [
    "DPI",
    "KIND_COLOURS",
    "PLOTS",
    "PLOT_FONT",
    "PLOT_SIZES",
    "Plot",
    "RecordedSets",
    "build_plots",
]

PLOTS: tuple[tuple[str, type, Callable[[Any], Plot], bool], ...] = (
    ("E1", E1View, e1_plot, False),
    ("E2", E2View, e2_plot, True),
    ("E3", E3View, e3_plot, True),
    ("E4", E4View, e4_plot, True),
    ("E5", E5View, e5_plot, False),
    ("X-COST", XCostView, x_cost_plot, True),
)
"""Each experiment with a plot: its id, the view its plot needs, the plot's renderer, and
whether it draws every recorded set (given ``[(model, view), ...]``) or one scripted view."""

RecordedSets = Sequence[tuple[str, View]]
"""An experiment's views, one per recorded set, each with its model's name; the first set is
the experiment's own ``<ID>.json``."""


def build_plots(sets: Mapping[str, RecordedSets]) -> list[Plot]:
    """The plots of the experiments whose views are present, sorted by name: a recorded
    experiment's plot shows every one of its sets whose view could be read."""
    plots = []
    for key, view_type, render, per_set in PLOTS:
        shown = [(model, view) for model, view in sets.get(key, ()) if isinstance(view, view_type)]
        if shown:
            plots.append(render(shown) if per_set else render(shown[0][1]))
    return sorted(plots, key=lambda p: p.name)
