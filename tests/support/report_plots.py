"""Shared by the report tests: a plot's size on disk and where ``index.html`` embeds it."""

from __future__ import annotations

import re
from pathlib import Path

from PIL import Image

from experiments.e1 import plot as e1_plot
from experiments.e2 import plot as e2_plot
from experiments.e3 import plot as e3_plot
from experiments.e4 import plot as e4_plot
from experiments.e5 import plot as e5_plot
from experiments.x_bench import plot as x_bench_plot
from experiments.x_cost import plot as x_cost_plot
from lab.report.plots import DPI, PlotSize
from lab.report.plots.canvas import figure_size

__all__ = ["figure_in", "plot_size", "png_of"]


SIZES: dict[str, PlotSize] = {
    "E1_strip": e1_plot.SIZE,
    "E2_files": e2_plot.SIZE,
    "E3_context": e3_plot.SIZE,
    "E4_cache": e4_plot.SIZE,
    "E5_cadence": e5_plot.SIZE,
    "X-COST_cumulative": x_cost_plot.SIZE,
    "X-BENCH_tradeoff": x_bench_plot.SIZE,
}
"""Each plot's size, as its experiment's plot module gives it."""
FOOTED = {"E4_cache"}
"""The plots with a key line under their panels."""


def plot_size(plot: str, panels: int = 1) -> tuple[int, int]:
    """The pixel size ``plot`` is drawn at with ``panels`` recorded sets."""
    width, height = (round(v * DPI) for v in figure_size(SIZES[plot], panels, plot in FOOTED))
    return width, height


def png_of(path: Path) -> tuple[str | None, tuple[int, int]]:
    """The format and pixel size of the image at ``path``."""
    with Image.open(path) as image:
        return image.format, image.size


def figure_in(folder: Path, plot: str) -> str | None:
    """The inside of the ``<figure>`` that ``folder/index.html`` embeds ``plot`` in, if any."""
    index = (folder / "index.html").read_text(encoding="utf-8")
    figure = re.search(rf'<figure id="plot-{plot}">(.*?)</figure>', index, re.DOTALL)
    return figure.group(1) if figure else None
