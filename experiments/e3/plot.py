"""E3's plot: the messages in the agent's context per round, each recorded model beside the
article's."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

from experiments.e3.view import E3View
from lab import (
    ARTICLE,
    ARTICLE_LIGHT,
    COMPACTION,
    OURS,
    OURS_LIGHT,
    Margins,
    Plot,
    PlotSize,
    new_figure,
    plot_of,
    wrapped_model,
)

__all__ = ["MARGINS", "SIZE", "e3_plot"]

SIZE: PlotSize = (6.8, 3.6)
"""Its size in inches: width, and the height of one panel (:data:`~lab.report.plots.PlotSize`)."""
MARGINS = Margins(left=0.44, right=1.64, top=0.26, bottom=0.3, between=0.52)
"""The y axis on the left, the legend (the model's name on two lines) on the right, the title
above each panel, the rounds under it."""
ARTICLE_CONTEXT: tuple[tuple[int, int, int], ...] = (
    (1, 0, 2),
    (2, 2, 4),
    (3, 4, 4),
    (4, 4, 4),
    (5, 4, 4),
)
"""The article's context sizes in E3: (round, messages before the call, messages after)."""
ARTICLE_COMPACTED_ROUNDS: tuple[int, ...] = (3, 4, 5)
"""The rounds in which the article's agent compacted."""


def _e3_panel(axes: Axes, model: str, view: E3View) -> None:
    """E3's context size per round, before and after the call, ours beside the article's."""
    ours = {r.round: (r.visible_before, r.visible_after) for r in view.rounds}
    article = {r: (b, a) for r, b, a in ARTICLE_CONTEXT}
    rounds = sorted(set(ours) | set(article))
    top = max([v for values in (ours, article) for pair in values.values() for v in pair] + [1])
    _context_bars(axes, rounds, ours, article)
    _compaction_marks(axes, view.compacted_rounds, top)
    axes.set_xticks(rounds, [f"round {r}" for r in rounds])
    axes.set_ylim(0, top + 1.6)
    axes.set_ylabel("messages in context")
    locator = axes.yaxis.get_major_locator()
    if isinstance(locator, MaxNLocator):  # the default AutoLocator is one
        locator.set_params(integer=True)
    axes.legend(
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=8,
        frameon=False,
        title=wrapped_model(model),
        title_fontsize=8,
    )
    axes.set_title(f"E3 · {model}: context per round, trigger 5 / keep 2", loc="left", fontsize=9)


Counts = dict[int, tuple[int, int]]
"""Round → messages in context (before the call, after it)."""


def _context_bars(axes: Axes, rounds: Sequence[int], ours: Counts, article: Counts) -> None:
    """Four bars per round: ours before and after the call, the article's before and after."""
    series = (
        ("before the call", ours, 0, OURS_LIGHT, -0.3),
        ("after the call", ours, 1, OURS, -0.1),
        ("article, before", article, 0, ARTICLE_LIGHT, 0.1),
        ("article, after", article, 1, ARTICLE, 0.3),
    )
    for label, values, which, colour, offset in series:
        xs = [r + offset for r in rounds if r in values]
        heights = [values[r][which] for r in rounds if r in values]
        bars = axes.bar(
            xs,
            heights,
            width=0.19,
            color=colour,
            edgecolor="#333333",
            linewidth=0.5,
            label=label,
        )
        axes.bar_label(bars, fontsize=8, padding=1)


def _compaction_marks(axes: Axes, compacted: Sequence[int], top: int) -> None:
    """A triangle over each round that compacted, ours filled, the article's open."""
    for rounds, offset, face, label in (
        (compacted, -0.2, COMPACTION, "compaction"),
        (ARTICLE_COMPACTED_ROUNDS, 0.2, "white", "compaction (article)"),
    ):
        axes.scatter(
            [r + offset for r in rounds],
            [top + 0.9] * len(rounds),
            marker="v",
            s=60,
            color=face,
            edgecolors=COMPACTION,
            label=label,
            zorder=3,
        )


def e3_plot(sets: Sequence[tuple[str, E3View]]) -> Plot:
    """``E3_context``: one panel per recorded set, the model named in its title and legend."""
    with new_figure(SIZE, len(sets), margins=MARGINS) as figure:
        panels = MARGINS.panels(figure, len(sets))[:, 0]
        for axes, (model, view) in zip(panels, sets, strict=True):
            _e3_panel(axes, model, view)
        caption = (
            "E3: messages in the agent's context when each call starts and ends, each recorded "
            f"model ({', '.join(m for m, _ in sets)}; blue) beside the article's deepseek-flash "
            "(grey), one panel per model; triangles mark the rounds that compacted."
        )
        return plot_of("E3_context", "E3", caption, figure)
