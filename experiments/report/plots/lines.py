"""E2's plot: the size of each memory file after each step, one line per file."""

from __future__ import annotations

from matplotlib.lines import Line2D

from experiments.report.per_experiment.e2 import E2View
from experiments.report.plots.canvas import Plot, new_figure, png

__all__ = ["e2_files", "e2_plot"]


def e2_files(view: E2View) -> bytes:
    """E2's memory files: size after each step, one line per file, missing files marked."""
    with new_figure("E2_files") as figure:
        axes = figure.add_subplot()
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
        axes.set_xticks([s.step for s in view.steps], [f"step {s.step}" for s in view.steps])
        axes.set_ylim(bottom=0)
        axes.set_ylabel("file size (bytes)")
        handles, _ = axes.get_legend_handles_labels()
        handles.append(Line2D([], [], marker="x", linestyle="", color="k", label="missing"))
        axes.legend(handles=handles, loc="upper left", fontsize=8, frameon=False)
        axes.set_title("E2: memory files after each step", loc="left", fontsize=10)
        return png(figure)


def e2_plot(view: E2View) -> Plot:
    """``E2_files`` with its caption."""
    caption = "E2: size of each memory file after each step; x marks a file that is missing."
    return Plot("E2_files", caption, e2_files(view))
