"""X-BENCH's plot: what each condition keeps against what it carries, and where in the
conversation the facts it keeps were planted.

Left, the trade-off: one point per condition and model, mean survival of the planted facts
(with its 95 % bootstrap interval) against the mean tokens of the context the model sees at the
end. Right, survival by depth band (early, middle, late in the conversation) as a grid, one row
per condition and model. One marker per condition; grey for the model-free runs, another colour
per recorded model, numbered ``[n]`` and keyed in the legend's title as in the caption (the
plots hold ASCII text only). Below, with recorded headline conversations, one row of panels
per model and one column per conversation size, sharing one axis label each way and one legend
above them, so no title, label or legend sits on another or on the data. Laid out from fixed
margins (:data:`MARGINS`, :data:`HEADLINE_MARGINS`), drawn once with no layout engine.
"""

from __future__ import annotations

from dataclasses import replace

from matplotlib.axes import Axes
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.figure import Figure

from experiments.x_bench.conditions import CONDITIONS
from experiments.x_bench.headline import HEADLINE, HeadlineRow, headline, headline_models
from experiments.x_bench.view import CellRecord, ConditionRecord, XBenchView
from lab import (
    ARTICLE,
    COMPACTION,
    OURS,
    Margins,
    Plot,
    PlotSize,
    model_order,
    new_figure,
    plot_of,
)

__all__ = ["HEADLINE_MARGINS", "MARGINS", "SIZE", "x_bench_plot"]

SIZE: PlotSize = (10.0, 5.0)
"""Its size in inches: width, and the height of one panel (:data:`~lab.report.plots.PlotSize`)."""
MARGINS = Margins(left=0.54, right=0.56, top=0.26, bottom=0.42, across=2.68)
"""Around the two upper panels: the y axis' label on the left, the colour bar and its ticks on
the right (:data:`COLOUR_BAR`), the titles above, the x axis' label below; between them the
left panel's legend (outside it) and the right panel's condition names. With the headline
panels, below :data:`HEADLINE_BAND`."""
HEADLINE_BAND = 5.3
"""The height (inches) of the band at the bottom of the figure that the headline panels take."""
HEADLINE_MARGINS = Margins(left=0.5, right=0.12, top=0.6, bottom=0.46, between=0.5, across=0.24)
"""Around the headline panels, within their band: the shared y label and the tick labels on
the left, the shared legend and the panels' titles above, the tick labels and the shared x
label below; a panel's tick labels and the next row's titles between the rows, the x tick
labels' ends between the columns."""
COLOUR_BAR = (0.06, 0.14, 0.7)
"""The colour bar's gap from the right panel and its width (inches), and its share of the
panel's height (centred on it)."""

NAME = "X-BENCH_tradeoff"
BANDS = ("early", "middle", "late")
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "h", "<", ">")
"""One marker per condition, in the report's order (:func:`marker`)."""
COLOURS = (ARTICLE, OURS, COMPACTION, "#009E73")
"""The model-free runs' colour, then one per recorded model (few flat colours: the PNG's
palette keeps them apart)."""
NO_MODEL = "none"


def marker(name: str) -> str:
    """The marker of condition ``name``: the same in every panel."""
    order = list(CONDITIONS)
    return MARKERS[(order.index(name) if name in order else len(order)) % len(MARKERS)]


def _models(view: XBenchView) -> list[str]:
    """The recorded models that played a run, in the conditions' order."""
    seen = [c.model for c in view.conditions if c.status == "run" and c.model != NO_MODEL]
    return list(dict.fromkeys(seen))


def _label(name: str, model: str, models: list[str]) -> str:
    return name if model == NO_MODEL else f"{name} [{models.index(model) + 1}]"


def _short(model: str) -> str:
    return model.removeprefix("local-").removesuffix("-instruct-q4_k_m")


def _tradeoff(axes: Axes, rows: list[ConditionRecord], models: list[str]) -> None:
    for row in rows:
        recorded = row.model != NO_MODEL
        colour = COLOURS[(models.index(row.model) + 1) % len(COLOURS)] if recorded else ARTICLE
        low, high = row.survival - row.low, row.high - row.survival
        axes.errorbar(
            row.mean_final_tokens,
            row.survival,
            yerr=[[max(low, 0.0)], [max(high, 0.0)]],
            fmt=marker(row.name),
            color=colour,
            markersize=5,
            capsize=2,
            linewidth=0.8,
            label=_label(row.name, row.model, models),
        )
    axes.set_ylim(-0.05, 1.08)
    axes.set_xlim(left=0)
    axes.set_xlabel("tokens the model sees at the end (mean, estimator)", fontsize=8)
    axes.set_ylabel("planted facts kept (mean, 95 % CI)", fontsize=8)
    axes.set_title("what is kept against what is carried", loc="left", fontsize=9)
    key = "\n".join(f"[{n}] {_short(m)}" for n, m in enumerate(models, 1))
    legend = axes.legend(
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=6.5,
        frameon=False,
        title=key or None,
        title_fontsize=6.5,
    )
    legend.get_title().set_horizontalalignment("left")


def _bands(
    figure: Figure,
    axes: Axes,
    cells: list[CellRecord],
    rows: list[ConditionRecord],
    models: list[str],
) -> None:
    share = {(c.condition, c.model, c.group): c.share for c in cells}
    keys = [(r.name, r.model) for r in rows]
    grid = [
        [share.get((name, model, band), float("nan")) for band in BANDS] for name, model in keys
    ]
    # five flat shades: the PNG's 64-colour palette keeps the left panel's colours distinct
    shades = ListedColormap(["#F7FBFF", "#C6DBEF", "#6BAED6", "#2171B5", "#08306B"])
    levels = BoundaryNorm([0.0, 0.2, 0.4, 0.6, 0.8, 1.0001], shades.N)
    image = axes.imshow(grid, cmap=shades, norm=levels, aspect="auto")
    for y, values in enumerate(grid):
        for x, value in enumerate(values):
            if value == value:  # not NaN
                colour = "white" if value >= 0.6 else "black"
                axes.text(
                    x, y, f"{value:.0%}", ha="center", va="center", fontsize=6.5, color=colour
                )
    axes.set_xticks(range(len(BANDS)), BANDS, fontsize=8)
    axes.set_yticks(range(len(keys)), [_label(n, m, models) for n, m in keys], fontsize=7)
    axes.set_title("kept, by where the fact was planted", loc="left", fontsize=9)
    figure.colorbar(image, cax=_colour_bar(figure, axes))


def _colour_bar(figure: Figure, axes: Axes) -> Axes:
    """The colour bar's axes, right of ``axes`` (:data:`COLOUR_BAR`)."""
    width = figure.get_size_inches()[0]
    gap, wide, share = COLOUR_BAR
    box = axes.get_position()
    tall = box.height * share
    bottom = box.y0 + (box.height - tall) / 2
    return figure.add_axes((box.x1 + gap / width, bottom, wide / width, tall))


HEADLINE_COLOURS = dict(zip(HEADLINE, (OURS, COMPACTION, "#000000", ARTICLE), strict=True))
"""ctxlab's profile, the reference prompt, masking, truncation."""


def _headline_panel(axes: Axes, title: str, rows: list[HeadlineRow]) -> None:
    """ctxlab's profile against the reference prompt and the baselines on one model's
    headline conversations of one size: survival (95 % CI) against the tokens carried after a
    compaction. The axis labels and the legend are the grid's (:func:`_headline_grid`)."""
    for row in rows:
        axes.errorbar(
            row.carried_tokens,
            row.survival,
            yerr=[[max(row.survival - row.low, 0.0)], [max(row.high - row.survival, 0.0)]],
            fmt=marker(row.condition),
            color=HEADLINE_COLOURS[row.condition],
            markersize=6,
            capsize=2,
            linewidth=0.8,
            label=row.condition,
        )
    axes.set_ylim(-0.05, 1.08)
    axes.set_xlim(left=0)
    axes.tick_params(labelsize=7)
    axes.set_title(f"{title}: {rows[0].conversations} conv.", loc="left", fontsize=8)


def _headline_grid(figure: Figure, view: XBenchView, answers: list[tuple[str, str]]) -> None:
    """In the figure's bottom :data:`HEADLINE_BAND`, one panel per recorded model (rows) and
    conversation size (columns), one x and one y label for all of them and one legend above
    them."""
    models = sorted(dict.fromkeys(m for m, _ in answers), key=model_order)
    sizes = list(dict.fromkeys(s for _, s in answers))
    width, height = figure.get_size_inches()
    margins = replace(HEADLINE_MARGINS, top=HEADLINE_MARGINS.top + height - HEADLINE_BAND)
    grid = margins.panels(figure, len(models), len(sizes), sharey=True)
    for row in grid:
        for axes in row:
            axes.set_visible(False)
    for model, size in answers:
        axes = grid[models.index(model)][sizes.index(size)]
        axes.set_visible(True)
        _headline_panel(axes, f"{_short(model)} at {size.upper()}", headline(view, model, size))
    middle = (HEADLINE_MARGINS.bottom + HEADLINE_BAND - HEADLINE_MARGINS.top) / 2 / height
    figure.supxlabel(
        "tokens carried after a compaction (mean, estimator)", y=0.04 / height, fontsize=8
    )
    figure.supylabel("planted facts kept", x=0.04 / width, y=middle, fontsize=8)
    shown = next(a for row in grid for a in row if a.get_visible())
    handles, labels = shown.get_legend_handles_labels()
    figure.legend(
        handles,
        labels,
        loc="upper center",
        bbox_to_anchor=(0.5, (HEADLINE_BAND - 0.1) / height),
        ncols=len(labels),
        fontsize=7,
        frameon=False,
    )


def x_bench_plot(view: XBenchView) -> Plot:
    """``X-BENCH_tradeoff``: survival against carried tokens, and survival by depth band."""
    models = _models(view)
    # a model-free condition once, over every conversation (its runs with a model only add
    # the probe's answers); a model condition once per recorded model
    rows = [
        c for c in view.conditions if c.status == "run" and (c.needs_model or c.model == NO_MODEL)
    ]
    answers = headline_models(view)
    with new_figure(SIZE, panels=2 if answers else 1, margins=MARGINS) as figure:
        upper = replace(MARGINS, bottom=MARGINS.bottom + HEADLINE_BAND) if answers else MARGINS
        left, right = upper.panels(figure, 1, 2, width_ratios=[1.25, 1])[0]
        _tradeoff(left, rows, models)
        _bands(figure, right, view.by_band, rows, models)
        if answers:
            _headline_grid(figure, view, list(answers))
        numbered = "; ".join(f"[{n}] {m}" for n, m in enumerate(models, 1)) or "none yet"
        caption = (
            f"X-BENCH over {len(view.conversations)} seeded conversations at one budget per "
            "size: left, the share of planted facts each condition keeps (95 % bootstrap "
            "interval over conversations) against the tokens of the context the model sees at "
            "the end; right, the share kept by where the fact was planted. Grey: conditions "
            "with no model call, over every conversation; a colour and [n] per recorded "
            "summary model (keyed above the legend), over the conversations recorded so far. "
            f"Models: {numbered}."
            + (
                " Below, one row of panels per recorded model and one column per conversation "
                "size: ctxlab's profile against the reference "
                "prompt, masking and truncation on the conversations recorded under both "
                "ctxlab and the reference prompt, the share kept against the tokens carried "
                "right after a compaction (up and to the left is better)."
                if answers
                else ""
            )
        )
        return plot_of(NAME, "X-BENCH", caption, figure)
