"""What every plot shares: size, dpi, style and palette, fixed margins, and byte-reproducible
PNGs.

Agg, fixed size and dpi, no metadata: two renders give the same bytes. Only ASCII text goes
into the plots: the default DejaVu Sans has no CJK glyphs. A plot that gives its
:class:`Margins` is laid out once, from them, and drawn once: no layout engine measures its text
before the draw (constrained layout measured every panel's decorations twice, about a third
of a plot's CPU).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.typing import RcKeyType

__all__ = [
    "ARTICLE",
    "ARTICLE_LIGHT",
    "COMPACTION",
    "DPI",
    "OURS",
    "OURS_LIGHT",
    "PLOT_FONT",
    "Margins",
    "Plot",
    "PlotSize",
    "drawn_plot",
    "figure_size",
    "legend_of",
    "new_figure",
    "plot_of",
    "png",
    "wrapped_model",
]

DPI = 100
PlotSize = tuple[float, float]
"""A plot's size in inches, width and the height of one panel, as each experiment's plot
module gives it (``SIZE``): a plot of several recorded sets stacks one panel per set
(:func:`figure_size`). At :data:`DPI` it gives the PNG's size in pixels, kept small for the
plot's text sizes."""
FOOTER_INCHES = 0.45
"""Room under the panels for a plot's key line (:func:`new_figure`'s ``footer``)."""
OURS, OURS_LIGHT, ARTICLE, ARTICLE_LIGHT = "#0072B2", "#9CCBEA", "#6E6E6E", "#D9D9D9"
COMPACTION = "#D55E00"
PLOT_FONT = "DejaVu Sans"
"""The plots' font: matplotlib's bundled one, so every machine draws the same pixels."""
_STYLE: dict[RcKeyType, Any] = {
    "font.family": PLOT_FONT,
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


@dataclass(frozen=True)
class Plot:
    """One rendered plot."""

    name: str
    """File stem: the PNG is ``<name>.png``."""
    caption: str
    png: bytes
    experiment: str = ""
    """The experiment it belongs to (its section of ``index.html`` shows it)."""
    size: tuple[int, int] = (0, 0)
    """Width and height in pixels."""
    legend: tuple[str, ...] = ()
    """Its legends' titles and entries (the tests read the models they name)."""


def figure_size(size: PlotSize, panels: int = 1, footer: bool = False) -> tuple[float, float]:
    """The size in inches of a plot of ``size`` with ``panels`` stacked panels (and a key
    line)."""
    width, height = size
    return width, height * max(panels, 1) + (FOOTER_INCHES if footer else 0.0)


@dataclass(frozen=True)
class Margins:
    """The room around a plot's grid of panels and between them, in inches: what its titles,
    tick labels, axis labels and outside legends take, known from its size and the text it
    writes there (a test draws every plot and checks that no text leaves the figure or lies on
    another: tests/experiments/test_plot_margins.py)."""

    left: float
    right: float
    top: float
    bottom: float
    between: float = 0.0
    """Between two stacked panels."""
    across: float = 0.0
    """Between two panels side by side."""

    def grid(self, figure: Figure, rows: int = 1, columns: int = 1) -> dict[str, float]:
        """``figure.subplots``' ``gridspec_kw`` for ``rows`` x ``columns`` panels."""
        width, height = figure.get_size_inches()
        tall = (height - self.top - self.bottom - (rows - 1) * self.between) / rows
        wide = (width - self.left - self.right - (columns - 1) * self.across) / columns
        return {
            "left": self.left / width,
            "right": 1 - self.right / width,
            "bottom": self.bottom / height,
            "top": 1 - self.top / height,
            "hspace": self.between / tall,
            "wspace": self.across / wide,
        }

    def panels(self, figure: Figure, rows: int = 1, columns: int = 1, **shared: Any) -> np.ndarray:
        """The ``rows`` x ``columns`` panels of ``figure`` placed within these margins, always
        a 2-D array (``shared``: ``sharex``, ``sharey``)."""
        grid = self.grid(figure, rows, columns)
        return figure.subplots(rows, columns, squeeze=False, gridspec_kw=grid, **shared)


@contextmanager
def new_figure(
    size: PlotSize, panels: int = 1, footer: bool = False, margins: Margins | None = None
) -> Iterator[Figure]:
    """A figure of :func:`figure_size`, in the plots' style. With ``margins`` it has no layout
    engine (:meth:`Margins.panels` places its panels); without, constrained layout places
    them when it is drawn (slower: it measures every panel's text first)."""
    with matplotlib.rc_context(_STYLE):
        inches = figure_size(size, panels, footer)
        if margins is not None:
            figure = Figure(figsize=inches, dpi=DPI)
        else:
            figure = Figure(figsize=inches, dpi=DPI, layout="constrained")
        FigureCanvasAgg(figure)
        yield figure


def legend_of(figure: Figure) -> tuple[str, ...]:
    """The legends' titles and entries of ``figure``, in drawing order, each on one line."""
    legends = [a.get_legend() for a in figure.axes] + list(figure.legends)
    found = [
        text.get_text().replace("\n", "")
        for legend in legends
        if legend is not None
        for text in (legend.get_title(), *legend.get_texts())
    ]
    return tuple(t for t in found if t)


def drawn_plot(name: str, experiment: str, caption: str, data: bytes, size: PlotSize) -> Plot:
    """The :class:`Plot` of a one-panel PNG drawn at ``size``."""
    width, height = (round(v * DPI) for v in figure_size(size))
    return Plot(name, caption, data, experiment, (width, height))


def plot_of(name: str, experiment: str, caption: str, figure: Figure) -> Plot:
    """The :class:`Plot` of a drawn ``figure``: its PNG, pixel size and legend."""
    width, height = (round(v * DPI) for v in figure.get_size_inches())
    return Plot(name, caption, png(figure), experiment, (width, height), legend_of(figure))


PALETTE_COLOURS = 64
"""Colours of the PNGs' palette. The plots use a dozen flat colours plus the anti-aliasing
between them; 64 keep text and lines as matplotlib drew them to the eye, and the palette PNG is
about a third of the RGBA one (486 KB of plots became 137 KB), which keeps ``index.html``
small."""
PNG_COMPRESSION = 8
"""zlib's level for the PNGs: level 9 (what ``optimize=True`` asks for) took 0.27 s of CPU
for the seven plots and level 8 takes 0.10 s, for 1.4 % more bytes (178,669 became 181,258)."""


def png(figure: Figure) -> bytes:
    """The figure as a palette PNG (:data:`PALETTE_COLOURS`, median cut, no dithering: the
    same pixels give the same bytes; zlib at :data:`PNG_COMPRESSION`), without metadata that
    would differ between runs.

    The figure is drawn once on an Agg canvas at :data:`DPI` and its pixels are
    quantised as they are: ``savefig`` would lay a constrained figure out and draw it twice and
    write an RGBA PNG only to have it read back (the same bytes, about 15 % more CPU)."""
    figure.set_dpi(DPI)
    canvas = figure.canvas
    if not isinstance(canvas, FigureCanvasAgg):
        canvas = FigureCanvasAgg(figure)
    canvas.draw()
    pixels = canvas.buffer_rgba()
    height, width = pixels.shape[:2]
    drawn = Image.frombuffer("RGBA", (width, height), pixels, "raw", "RGBA", 0, 1)
    palette = drawn.convert("RGB").quantize(
        colors=PALETTE_COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    out = io.BytesIO()
    palette.save(out, format="PNG", compress_level=PNG_COMPRESSION)
    return out.getvalue()


def wrapped_model(model: str, width: int = 22) -> str:
    """A model's name on lines of at most ``width`` characters, broken after ``-`` or ``/``."""
    lines, line = [], ""
    for part in model.replace("/", "/\0").replace("-", "-\0").split("\0"):
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
    return "\n".join([*lines, line])
