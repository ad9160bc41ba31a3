"""Shared by the report tests: a plot's size on disk and where ``index.html`` embeds it."""

from __future__ import annotations

import re
from pathlib import Path

from PIL import Image

from experiments.report.plots import DPI, PLOT_SIZES

__all__ = ["figure_in", "plot_size", "png_of"]


def plot_size(plot: str) -> tuple[int, int]:
    """The pixel size ``plot`` is drawn at."""
    width, height = (round(v * DPI) for v in PLOT_SIZES[plot])
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
