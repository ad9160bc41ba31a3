"""E5's plot: the cadence grid as two trigger x keep heat maps, measured beside formula."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import BoundaryNorm
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.patches import Patch, Rectangle

from experiments.e5.view import E5View, GridCell
from lab import COMPACTION, Margins, Plot, PlotSize, drawn_plot, new_figure, png

__all__ = ["MARGINS", "SIZE", "e5_cadence", "e5_plot"]

SIZE: PlotSize = (8.6, 6.8)
"""Its size in inches: width, and the height of one panel (:data:`~lab.report.plots.PlotSize`)."""
MARGINS = Margins(left=0.44, right=1.02, top=0.8, bottom=0.38, across=0.08)
"""Around the two heat maps: the triggers on the left; the colour bar and its label on the
right; the title, each panel's title, the keep label and the keeps above; the key below."""
COLOUR_BAR = (0.36, 0.23, 0.8)
"""The colour bar's gap from the right panel and its width (inches), and its share of the
panels' height (centred on them)."""

NOT_RUN = "#E4E4E4"
HEAT_MAP = "YlGnBu"


def _heat_panel(
    axes: Axes,
    view: E5View,
    value: Callable[[GridCell], float],
    label: Callable[[GridCell], str],
    norm: BoundaryNorm,
    title: str,
) -> AxesImage:
    """One trigger x keep panel: coloured cells, their values written in, disagreements outlined."""
    triggers, keeps = view.triggers, view.keeps
    cmap = matplotlib.colormaps[HEAT_MAP].resampled(norm.N).with_extremes(bad=NOT_RUN)
    values = np.full((len(triggers), len(keeps)), np.nan)
    for cell in view.grid:
        values[triggers.index(cell.trigger), keeps.index(cell.keep)] = value(cell)
    image = axes.imshow(
        np.ma.masked_invalid(values), cmap=cmap, norm=norm, aspect="auto", interpolation="nearest"
    )
    for cell in view.grid:
        row, column = triggers.index(cell.trigger), keeps.index(cell.keep)
        shade = cmap(norm(values[row, column])) if not np.isnan(values[row, column]) else None
        _write_cell(axes, row, column, label(cell), shade, cell.agrees)
    _grid_axes(axes, triggers, keeps)
    axes.set_title(title, loc="left", fontsize=9)
    return image


def _write_cell(
    axes: Axes,
    row: int,
    column: int,
    text: str,
    shade: tuple[float, float, float, float] | None,
    agrees: bool,
) -> None:
    """A cell's value, legible on its shade; a cell that disagrees is outlined."""
    dark = shade is not None and 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2] < 0.5
    axes.text(
        column, row, text, ha="center", va="center", fontsize=8, color="white" if dark else "black"
    )
    if not agrees:
        axes.add_patch(
            Rectangle(
                (column - 0.44, row - 0.42),
                0.88,
                0.84,
                fill=False,
                edgecolor=COMPACTION,
                linewidth=2.4,
                zorder=3,
            )
        )


def _grid_axes(axes: Axes, triggers: Sequence[int], keeps: Sequence[int]) -> None:
    """Keeps along the top, triggers down the side, white lines between the cells."""
    axes.set_xticks(range(len(keeps)), [str(k) for k in keeps])
    axes.set_yticks(range(len(triggers)), [str(t) for t in triggers])
    axes.set_xticks(np.arange(len(keeps) + 1) - 0.5, minor=True)
    axes.set_yticks(np.arange(len(triggers) + 1) - 0.5, minor=True)
    axes.grid(which="minor", color="white", linewidth=1)
    axes.tick_params(which="minor", length=0)
    axes.tick_params(which="major", length=0, labelsize=8)
    axes.xaxis.set_ticks_position("top")
    axes.xaxis.set_label_position("top")
    axes.set_xlabel("keep (messages)")
    axes.set_ylabel("trigger (messages)")
    for spine in axes.spines.values():
        spine.set_visible(False)


def _measured_interval(cell: GridCell) -> float:
    """The cell's measured interval; where it varied, the shortest one."""
    if cell.interval is not None:
        return cell.interval
    return min(cell.intervals, default=float("nan"))


def e5_cadence(view: E5View) -> bytes:
    """E5's grid: measured interval beside the formula's, over trigger x keep."""
    top = max([c.formula for c in view.grid] + [v for c in view.grid for v in c.intervals] + [1])
    norm = BoundaryNorm(np.arange(-0.5, top + 1.5), top + 1)
    with new_figure(SIZE, margins=MARGINS) as figure:
        left, right = MARGINS.panels(figure, 1, 2, sharey=True)[0]
        measured = "measured: rounds between compactions"
        image = _heat_panel(
            left, view, _measured_interval, lambda c: c.measured_text, norm, measured
        )
        formula = "formula: ceil((trigger - keep - 1) / 2)"
        _heat_panel(right, view, lambda c: c.formula, lambda c: str(c.formula), norm, formula)
        right.set_ylabel("")
        figure.colorbar(
            image, cax=_colour_bar(figure), ticks=range(top + 1), label="rounds between compactions"
        )
        _e5_legend(figure, view)
        figure.suptitle(
            "E5: compaction cadence of a plain Q&A agent, trigger x keep",
            x=0.01,
            y=0.995,
            ha="left",
            fontsize=10,
        )
        return png(figure)


def _colour_bar(figure: Figure) -> Axes:
    """The colour bar's axes, right of the panels (:data:`COLOUR_BAR`)."""
    width, height = figure.get_size_inches()
    gap, wide, share = COLOUR_BAR
    tall = height - MARGINS.top - MARGINS.bottom
    left = width - MARGINS.right + gap
    bottom = MARGINS.bottom + tall * (1 - share) / 2
    return figure.add_axes((left / width, bottom / height, wide / width, tall * share / height))


def _e5_legend(figure: Figure, view: E5View) -> None:
    """Under the panels: what an outline and a grey cell mean."""
    wrong = len(view.disagreeing)
    handles = [
        Patch(
            facecolor="white",
            edgecolor=COMPACTION,
            linewidth=2,
            label=f"measured != formula ({wrong} of {len(view.grid)} cells)",
        ),
        Patch(facecolor=NOT_RUN, edgecolor=NOT_RUN, label="keep >= trigger: not run"),
    ]
    figure.legend(handles=handles, loc="lower center", ncols=2, frameon=False)


def _e5_caption(view: E5View) -> str:
    wrong = view.disagreeing
    text = (
        f"E5: rounds between compactions of a plain Q&A agent for triggers "
        f"{view.triggers[0]}–{view.triggers[-1]} and keeps {view.keeps[0]}–{view.keeps[-1]}, "
        "measured (left) beside the article's formula ceil((trigger − keep − 1) / 2) (right); "
        "grey cells (keep ≥ trigger) were not run."
    )
    if not wrong:
        return text + f" All {len(view.grid)} cells agree."
    edge = all(c.trigger == c.keep + 1 and c.interval == 1 for c in wrong)
    return text + (
        f" The {len(wrong)} outlined cells disagree"
        + (
            ": there trigger = keep + 1, the formula gives 0 and the agent compacts every round."
            if edge
            else "."
        )
    )


def e5_plot(view: E5View) -> Plot:
    """``E5_cadence`` with its caption."""
    return drawn_plot("E5_cadence", "E5", _e5_caption(view), e5_cadence(view), SIZE)
