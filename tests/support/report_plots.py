"""Shared by the report tests: a plot's size on disk and where ``index.html`` embeds it."""

from __future__ import annotations

import re
from pathlib import Path

from PIL import Image

from lab.report.plots import DPI
from lab.report.plots.canvas import figure_size

__all__ = ["figure_in", "plot_size", "png_of"]


FOOTED = {"E4_cache"}
"""The plots with a key line under their panels."""


def plot_size(plot: str, panels: int = 1) -> tuple[int, int]:
    """The pixel size ``plot`` is drawn at with ``panels`` recorded sets."""
    width, height = (round(v * DPI) for v in figure_size(plot, panels, plot in FOOTED))
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
