"""E2's plot: the size of each memory file after each step, one line per file, one panel per
recorded set."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from experiments.e2.view import E2View
from lab import Margins, Plot, PlotSize, new_figure, plot_of

__all__ = ["MARGINS", "SIZE", "e2_plot", "step_label"]

SIZE: PlotSize = (6.8, 3.4)
"""Its size in inches: width, and the height of one panel (:data:`~lab.report.plots.PlotSize`)."""
MARGINS = Margins(left=0.62, right=0.3, top=0.26, bottom=0.52, between=0.76)
"""The y axis' label and sizes on the left, the title above each panel, three lines of step
labels under each."""


def step_label(number: int, title: str) -> str:
    """A step's tick label: its number and, on a second line, what it does."""
    return f"step {number}\n{title}" if title else f"step {number}"


def _panel(axes: Axes, model: str, view: E2View) -> None:
    paths = view.paths
    for number, path in enumerate(paths):
        # Missing files sit at size 0; spread their marks so that none hides another.
        spread = (number - (len(paths) - 1) / 2) * 0.06
        states = [(s.step, s.files.get(path)) for s in view.steps]
        sizes = [f.size if f and f.exists else float("nan") for _, f in states]
        line = axes.plot([s for s, _ in states], sizes, marker="o", label=path)[0]
        missing = [s for s, f in states if not (f and f.exists)]
        axes.scatter(
            [s + spread for s in missing],
            [0] * len(missing),
            marker="x",
            color=line.get_color(),
            clip_on=False,
            zorder=3,
        )
    axes.set_xticks(
        [s.step for s in view.steps],
        [step_label(s.step, s.title.replace(", ", ",\n")) for s in view.steps],
        fontsize=7,
    )
    axes.set_ylim(bottom=0)
    axes.set_ylabel("file size (bytes)")
    handles, _ = axes.get_legend_handles_labels()
    handles.append(Line2D([], [], marker="x", linestyle="", color="k", label="missing"))
    axes.legend(
        handles=handles, loc="upper left", fontsize=8, frameon=False, title=model, title_fontsize=8
    )
    axes.set_title(f"E2 · {model}: memory files after each step", loc="left", fontsize=10)


def e2_plot(sets: Sequence[tuple[str, E2View]]) -> Plot:
    """``E2_files``: one panel per recorded set, the model named in its title and legend."""
    with new_figure(SIZE, len(sets), margins=MARGINS) as figure:
        for axes, (model, view) in zip(MARGINS.panels(figure, len(sets))[:, 0], sets, strict=True):
            _panel(axes, model, view)
        caption = (
            "E2: size in bytes of each memory file after each of the four steps, one panel per "
            f"recorded model ({', '.join(m for m, _ in sets)}); x marks a file that is missing."
        )
        return plot_of("E2_files", "E2", caption, figure)
