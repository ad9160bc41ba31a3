"""PNG plots of the experiments, byte-reproducible: Agg, fixed size and dpi, no metadata.

Only ASCII text goes into the plots: the default DejaVu Sans has no CJK glyphs.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import BoundaryNorm
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from experiments.report.tables import ARTICLE_E3_COMPACTED_ROUNDS, ARTICLE_E3_CONTEXT
from experiments.report.views import (
    E1View,
    E2View,
    E3View,
    E4View,
    E5View,
    GridCell,
    MessageRow,
    View,
)

__all__ = ["DPI", "KIND_COLOURS", "PLOT_SIZES", "Plot", "build_plots"]

DPI = 100
PLOT_SIZES: dict[str, tuple[float, float]] = {
    "E1_strip": (10.0, 3.8),
    "E3_context": (9.0, 4.6),
    "E2_files": (9.0, 4.6),
    "E4_cache": (9.0, 4.6),
    "E5_cadence": (10.0, 6.6),
}
"""Figure sizes in inches; at :data:`DPI` they give the PNG's size in pixels."""
KIND_COLOURS: dict[str, str] = {
    "summary": "#CC79A7",
    "user": "#56B4E9",
    "assistant": "#009E73",
    "tool_use": "#E69F00",
    "tool_result": "#F0E442",
}
"""Okabe–Ito colours, readable by colour-blind readers."""
OTHER_KIND = "#BBBBBB"
OURS, OURS_LIGHT, ARTICLE, ARTICLE_LIGHT = "#0072B2", "#9CCBEA", "#6E6E6E", "#D9D9D9"
COMPACTION = "#D55E00"
NOT_RUN = "#E4E4E4"
HEAT_MAP = "YlGnBu"
_STYLE = {
    "font.family": "DejaVu Sans",
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
def _figure(name: str) -> Iterator[Figure]:
    with matplotlib.rc_context(_STYLE):
        figure = Figure(figsize=PLOT_SIZES[name], dpi=DPI, layout="constrained")
        FigureCanvasAgg(figure)
        yield figure


def _png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


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
    with _figure("E1_strip") as figure:
        axes = figure.add_subplot()
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
        return _png(figure)


def e3_context(view: E3View) -> bytes:
    """E3's context size per round, before and after the call, ours beside the article's."""
    ours = {r.round: (r.visible_before, r.visible_after) for r in view.rounds}
    article = {r: (b, a) for r, b, a in ARTICLE_E3_CONTEXT}
    rounds = sorted(set(ours) | set(article))
    series = (
        ("ours, before call", ours, 0, OURS_LIGHT, -0.3),
        ("ours, after call", ours, 1, OURS, -0.1),
        ("article, before call", article, 0, ARTICLE_LIGHT, 0.1),
        ("article, after call", article, 1, ARTICLE, 0.3),
    )
    with _figure("E3_context") as figure:
        axes = figure.add_subplot()
        top = max([v for values in (ours, article) for pair in values.values() for v in pair] + [1])
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
        for compacted, offset, face, label in (
            (view.compacted_rounds, -0.2, COMPACTION, "compaction (ours)"),
            (ARTICLE_E3_COMPACTED_ROUNDS, 0.2, "white", "compaction (article)"),
        ):
            axes.scatter(
                [r + offset for r in compacted],
                [top + 0.9] * len(compacted),
                marker="v",
                s=60,
                color=face,
                edgecolors=COMPACTION,
                label=label,
                zorder=3,
            )
        axes.set_xticks(rounds, [f"round {r}" for r in rounds])
        axes.set_ylim(0, top + 1.6)
        axes.set_ylabel("messages in context")
        axes.yaxis.get_major_locator().set_params(integer=True)
        axes.legend(loc="upper left", ncols=3, fontsize=8, frameon=False)
        axes.set_title("E3: context per round, trigger 5 / keep 2", loc="left", fontsize=10)
        return _png(figure)


def e2_files(view: E2View) -> bytes:
    """E2's memory files: size after each step, one line per file, missing files marked."""
    with _figure("E2_files") as figure:
        axes = figure.add_subplot()
        paths = view.paths
        for number, path in enumerate(paths):
            # Missing files sit at size 0; spread their marks so that none hides another.
            spread = (number - (len(paths) - 1) / 2) * 0.06
            states = [
                (s.step, next((f for f in s.files if f.path == path), None)) for s in view.steps
            ]
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
        return _png(figure)


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
        dark = shade is not None and 0.299 * shade[0] + 0.587 * shade[1] + 0.114 * shade[2] < 0.5
        axes.text(
            column,
            row,
            label(cell),
            ha="center",
            va="center",
            fontsize=8,
            color="white" if dark else "black",
        )
        if not cell.agrees:
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
    axes.set_title(title, loc="left", fontsize=9)
    return image


def e5_cadence(view: E5View) -> bytes:
    """E5's grid: measured interval beside the formula's, over trigger x keep."""
    top = max([c.formula for c in view.grid] + [v for c in view.grid for v in c.intervals] + [1])
    norm = BoundaryNorm(np.arange(-0.5, top + 1.5), top + 1)
    with _figure("E5_cadence") as figure:
        left, right = figure.subplots(1, 2, sharey=True)
        image = _heat_panel(
            left,
            view,
            lambda c: (
                c.interval if c.interval is not None else min(c.intervals, default=float("nan"))
            ),
            lambda c: c.measured_text,
            norm,
            "measured: rounds between compactions",
        )
        _heat_panel(
            right,
            view,
            lambda c: c.formula,
            lambda c: str(c.formula),
            norm,
            "formula: ceil((trigger - keep - 1) / 2)",
        )
        right.set_ylabel("")
        figure.colorbar(
            image,
            ax=[left, right],
            ticks=range(top + 1),
            label="rounds between compactions",
            shrink=0.8,
        )
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
        figure.legend(handles=handles, loc="outside lower center", ncols=2, frameon=False)
        figure.suptitle(
            "E5: compaction cadence of a plain Q&A agent, trigger x keep",
            x=0.01,
            ha="left",
            fontsize=10,
        )
        return _png(figure)


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


CACHED, NOT_CACHED = OURS, "#E69F00"


def e4_cache(view: E4View) -> bytes:
    """E4's summary calls: prompt tokens cached and not cached, grouped per engine."""
    runs = view.engines
    cached = [r.summary_cached_tokens for r in runs]
    uncached = [
        None if r.summary_prompt_tokens is None or c is None else r.summary_prompt_tokens - c
        for r, c in zip(runs, cached, strict=True)
    ]
    top = max([r.summary_prompt_tokens or 0 for r in runs] + [1])
    positions = np.arange(len(runs), dtype=float)
    with _figure("E4_cache") as figure:
        axes = figure.add_subplot()
        for label, values, colour, offset in (
            ("cached by the server", cached, CACHED, -0.19),
            ("not cached", uncached, NOT_CACHED, 0.19),
        ):
            heights = [float("nan") if v is None else v for v in values]
            bars = axes.bar(
                positions + offset,
                heights,
                width=0.36,
                color=colour,
                edgecolor="#333333",
                linewidth=0.5,
                label=label,
            )
            axes.bar_label(
                bars, labels=["n/a" if v is None else str(v) for v in values], fontsize=8, padding=2
            )
        for x, run in zip(positions, runs, strict=True):
            prompt = _count_text(run.summary_prompt_tokens)
            share = "" if run.cached_share is None else f" ({run.cached_share:.1%} cached)"
            axes.text(
                x,
                top * 1.16,
                f"prefix reuse {run.prefix_reuse:.2%}\nprompt {prompt} tokens{share}",
                ha="center",
                va="bottom",
                fontsize=9,
            )
        axes.set_xticks(
            positions,
            [
                f"{r.title}\n(summary request: {r.summary_request_messages} "
                + ("message)" if r.summary_request_messages == 1 else "messages)")
                for r in runs
            ],
        )
        axes.set_xlim(-0.7, len(runs) - 0.3)
        axes.set_ylim(0, top * 1.42)
        axes.set_ylabel("summary call prompt tokens")
        axes.legend(loc="upper left", fontsize=8, frameon=False, ncols=2)
        axes.set_title(
            "E4: the summary call's prompt tokens, as llama-server reported them",
            loc="left",
            fontsize=10,
        )
        return _png(figure)


def _count_text(value: int | None) -> str:
    return "n/a" if value is None else str(value)


def _e4_caption(view: E4View) -> str:
    parts = [
        f"{r.title}: {_count_text(r.summary_cached_tokens)} of "
        f"{_count_text(r.summary_prompt_tokens)} prompt tokens cached, prefix reuse "
        f"{r.prefix_reuse:.2%}"
        for r in view.engines
    ]
    return (
        "E4: the prompt tokens of each engine's summary call, split into those the server had "
        "cached and the rest; prefix reuse is the share of the summary request's bytes that "
        "repeat the previous request's start. " + "; ".join(parts) + "."
    )


def build_plots(views: Mapping[str, View]) -> list[Plot]:
    """The plots of the experiments whose views are present, sorted by name."""
    plots = []
    e1 = views.get("E1")
    if isinstance(e1, E1View):
        caption = (
            f"E1: the {len(e1.before)} messages before compaction (top) and the {len(e1.after)} "
            "after (bottom), coloured by kind. A cut at the naive cutoff (dashed) would split a "
            "tool call from its result; the safe cutoff (solid) is where the compactor cut."
        )
        plots.append(Plot("E1_strip", caption, e1_strip(e1)))
    if isinstance(views.get("E2"), E2View):
        caption = "E2: size of each memory file after each step; x marks a file that is missing."
        plots.append(Plot("E2_files", caption, e2_files(views["E2"])))
    if isinstance(views.get("E3"), E3View):
        caption = (
            "E3: messages in the agent's context when each call starts and ends, ours (blue) "
            "beside the article's (grey); triangles mark the rounds that compacted."
        )
        plots.append(Plot("E3_context", caption, e3_context(views["E3"])))
    e4 = views.get("E4")
    if isinstance(e4, E4View):
        plots.append(Plot("E4_cache", _e4_caption(e4), e4_cache(e4)))
    e5 = views.get("E5")
    if isinstance(e5, E5View):
        plots.append(Plot("E5_cadence", _e5_caption(e5), e5_cadence(e5)))
    return sorted(plots, key=lambda p: p.name)
