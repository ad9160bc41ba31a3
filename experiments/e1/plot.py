"""E1's plot: the history before and after compaction as strips of message boxes."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.patches import Patch, Rectangle

from experiments.e1.view import E1View, MessageRow
from lab import ARTICLE, COMPACTION, Margins, Plot, PlotSize, drawn_plot, new_figure, png

__all__ = ["KIND_COLOURS", "MARGINS", "SIZE", "e1_plot", "e1_strip"]

SIZE: PlotSize = (8.4, 3.4)
"""Its size in inches: width, and the height of one panel (:data:`~lab.report.plots.PlotSize`)."""
MARGINS = Margins(left=0.04, right=0.04, top=0.26, bottom=0.34)
"""Its one panel has no axes; the title above it, the key of kinds below it."""

KIND_COLOURS: dict[str, str] = {
    "summary": "#CC79A7",
    "user": "#56B4E9",
    "assistant": "#009E73",
    "tool_use": "#E69F00",
    "tool_result": "#F0E442",
}
"""Okabe–Ito colours, readable by colour-blind readers."""
OTHER_KIND = "#BBBBBB"


def _strip(axes: Axes, y: float, messages: Sequence[MessageRow], label: str) -> None:
    for position, message in enumerate(messages):
        colour = KIND_COLOURS.get(message.kind, OTHER_KIND)
        axes.add_patch(Rectangle((position + 0.05, y), 0.9, 0.7, facecolor=colour, edgecolor="k"))
        axes.text(
            position + 0.5,
            y + 0.35,
            f"{message.index}\n{message.kind}",
            ha="center",
            va="center",
            fontsize=8,
        )
    axes.text(-0.15, y + 0.35, label, ha="right", va="center", fontsize=9, fontweight="bold")


def _bracket(axes: Axes, start: float, end: float, text: str) -> None:
    axes.plot([start, start, end, end], [1.22, 1.17, 1.17, 1.22], color=ARTICLE, linewidth=1)
    axes.text((start + end) / 2, 1.12, text, ha="center", va="top", fontsize=8, color=ARTICLE)


def _fates(axes: Axes, view: E1View) -> None:
    """Brackets under the before strip (summarised, kept), lines to where each part went."""
    kept = len(view.before) - view.cutoff
    _bracket(axes, 0.1, view.cutoff - 0.1, f"summarised ({view.cutoff})")
    _bracket(axes, view.cutoff + 0.1, len(view.before) - 0.1, f"kept ({kept})")
    if not (view.summary and len(view.after) == kept + 1):
        return  # the after strip is not "summary, then the kept messages": no lines to draw
    axes.plot([view.cutoff / 2, 0.5], [1.0, 0.72], color=ARTICLE, linewidth=1)
    for i in range(kept):
        axes.plot(
            [view.cutoff + i + 0.5, i + 1.5], [1.0, 0.72], color=ARTICLE, linewidth=1, linestyle=":"
        )


def e1_strip(view: E1View) -> bytes:
    """E1's history before and after compaction, one box per message, cutoffs marked."""
    with new_figure(SIZE, margins=MARGINS) as figure:
        axes = MARGINS.panels(figure)[0, 0]
        _strip(axes, 1.3, view.before, f"before ({len(view.before)})")
        _strip(axes, 0.0, view.after, f"after ({len(view.after)})")
        for x, text, align, style in (
            (view.cutoff, f"safe cutoff {view.cutoff}", "right", "-"),
            (view.naive_cutoff, f"naive cutoff {view.naive_cutoff}", "left", "--"),
        ):
            colour = COMPACTION if style == "-" else ARTICLE
            axes.plot([x, x], [1.2, 2.15], color=colour, linestyle=style, linewidth=2)
            offset = -0.06 if align == "right" else 0.06
            axes.text(x + offset, 2.2, text, ha=align, va="bottom", color=colour, fontsize=9)
        _fates(axes, view)
        width = max(len(view.before), len(view.after), 1)
        axes.set_xlim(-1.6, width + 0.1)
        axes.set_ylim(-0.1, 2.6)
        axes.axis("off")
        handles = [Patch(facecolor=c, edgecolor="k", label=k) for k, c in KIND_COLOURS.items()]
        axes.legend(
            handles=handles,
            loc="lower right",
            ncols=5,
            frameon=False,
            fontsize=8,
            bbox_to_anchor=(1.0, -0.12),
        )
        title = f"E1: {len(view.before)} messages compacted to {len(view.after)}"
        axes.set_title(title, loc="left", fontsize=10)
        return png(figure)


def e1_plot(view: E1View) -> Plot:
    """``E1_strip`` with its caption."""
    caption = (
        f"E1: the {len(view.before)} messages before compaction (top) and the {len(view.after)} "
        "after (bottom), coloured by kind. A cut at the naive cutoff (dashed) would split a "
        "tool call from its result; the safe cutoff (solid) is where the compactor cut."
    )
    return drawn_plot("E1_strip", "E1", caption, e1_strip(view), SIZE)
