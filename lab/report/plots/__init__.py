"""PNG plots of the experiments, byte-reproducible: Agg, fixed size and dpi, no metadata.

Each experiment draws its own plot (``experiments/<name>/plot.py``, named by its
``page.PAGE``; :func:`lab.report.experiments.build_plots` draws them all);
:mod:`.canvas` holds what they share (sizes, style, palette, the PNG writer).
"""

from __future__ import annotations

from lab.report.plots.canvas import DPI, PLOT_FONT, Plot, PlotSize

__all__ = ["DPI", "PLOT_FONT", "Plot", "PlotSize"]
