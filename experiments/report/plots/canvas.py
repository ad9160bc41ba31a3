"""What every plot shares: size, dpi, style and palette, and byte-reproducible PNGs.

Agg, fixed size and dpi, no metadata: two renders give the same bytes. Only ASCII text goes
into the plots: the default DejaVu Sans has no CJK glyphs.
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

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

__all__ = [
    "ARTICLE",
    "ARTICLE_LIGHT",
    "COMPACTION",
    "DPI",
    "OURS",
    "OURS_LIGHT",
    "PLOT_FONT",
    "PLOT_SIZES",
    "Plot",
    "new_figure",
    "png",
]

DPI = 100
PLOT_SIZES: dict[str, tuple[float, float]] = {
    "E1_strip": (8.4, 3.4),
    "E3_context": (6.8, 4.2),
    "E2_files": (6.8, 4.2),
    "E4_cache": (6.8, 4.4),
    "E5_cadence": (8.6, 6.8),
    "X-COST_cumulative": (9.6, 3.8),
}
"""Figure sizes in inches; at :data:`DPI` they give the PNG's size in pixels. Kept small for
their text sizes, so that a phone showing a plot 600 px wide still shows readable text."""
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


@contextmanager
def new_figure(name: str) -> Iterator[Figure]:
    """A constrained-layout figure of :data:`PLOT_SIZES` ``[name]``, in the plots' style."""
    with matplotlib.rc_context(_STYLE):
        figure = Figure(figsize=PLOT_SIZES[name], dpi=DPI, layout="constrained")
        FigureCanvasAgg(figure)
        yield figure


def png(figure: Figure) -> bytes:
    """The figure as PNG bytes, without the metadata that would differ between runs."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()
