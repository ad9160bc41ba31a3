"""Grouped bar charts: E3's context per round and E4's cached prompt tokens."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.ticker import MaxNLocator

from experiments.report.per_experiment.e3 import E3View
from experiments.report.per_experiment.e4 import E4View
from experiments.report.plots.canvas import (
    ARTICLE,
    ARTICLE_LIGHT,
    COMPACTION,
    FOOTER_INCHES,
    OURS,
    OURS_LIGHT,
    Plot,
    new_figure,
    plot_of,
)
from experiments.report.tables import ARTICLE_E3_COMPACTED_ROUNDS, ARTICLE_E3_CONTEXT

__all__ = ["e3_plot", "e4_plot"]


def _e3_panel(axes: Axes, model: str, view: E3View) -> None:
    """E3's context size per round, before and after the call, ours beside the article's."""
    ours = {r.round: (r.visible_before, r.visible_after) for r in view.rounds}
    article = {r: (b, a) for r, b, a in ARTICLE_E3_CONTEXT}
    rounds = sorted(set(ours) | set(article))
    series = (
        ("before the call", ours, 0, OURS_LIGHT, -0.3),
        ("after the call", ours, 1, OURS, -0.1),
        ("article, before", article, 0, ARTICLE_LIGHT, 0.1),
        ("article, after", article, 1, ARTICLE, 0.3),
    )
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
        (view.compacted_rounds, -0.2, COMPACTION, "compaction"),
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
    locator = axes.yaxis.get_major_locator()
    if isinstance(locator, MaxNLocator):  # the default AutoLocator is one
        locator.set_params(integer=True)
    axes.legend(
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=8,
        frameon=False,
        title=_wrapped(model),
        title_fontsize=8,
    )
    axes.set_title(f"E3 · {model}: context per round, trigger 5 / keep 2", loc="left", fontsize=9)


def _wrapped(model: str, width: int = 22) -> str:
    """A model's name on lines of at most ``width`` characters, broken after ``-`` or ``/``."""
    lines, line = [], ""
    for part in model.replace("/", "/\0").replace("-", "-\0").split("\0"):
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
    return "\n".join([*lines, line])


def e3_plot(sets: Sequence[tuple[str, E3View]]) -> Plot:
    """``E3_context``: one panel per recorded set, the model named in its title and legend."""
    with new_figure("E3_context", len(sets)) as figure:
        panels = figure.subplots(len(sets), 1, squeeze=False)[:, 0]
        for axes, (model, view) in zip(panels, sets, strict=True):
            _e3_panel(axes, model, view)
        caption = (
            "E3: messages in the agent's context when each call starts and ends, each recorded "
            f"model ({', '.join(m for m, _ in sets)}; blue) beside the article's deepseek-flash "
            "(grey), one panel per model; triangles mark the rounds that compacted."
        )
        return plot_of("E3_context", "E3", caption, figure)


CACHED, NOT_CACHED = OURS, "#E69F00"


def _e4_panel(axes: Axes, model: str, view: E4View) -> None:
    """E4's summary calls: prompt tokens cached and not cached, grouped per engine."""
    runs = view.engines
    cached = [r.summary_cached_tokens for r in runs]
    uncached = [
        None if r.summary_prompt_tokens is None or c is None else r.summary_prompt_tokens - c
        for r, c in zip(runs, cached, strict=True)
    ]
    top = max([r.summary_prompt_tokens or 0 for r in runs] + [1])
    positions = np.arange(len(runs), dtype=float)
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
        share = "" if run.cached_share is None else f", {run.cached_share:.1%} cached"
        axes.text(
            x,
            top * 1.16,
            f"prefix reuse {run.prefix_reuse:.2%} (a)\n{prompt} tokens{share} (b)",
            ha="center",
            va="bottom",
            fontsize=8,
        )
    axes.set_xticks(
        positions,
        [
            f"{r.title}\n(request: {r.summary_request_messages} "
            + ("message)" if r.summary_request_messages == 1 else "messages)")
            for r in runs
        ],
    )
    axes.set_xlim(-0.6, len(runs) - 0.4)
    axes.set_ylim(0, top * 1.42)
    axes.set_ylabel("summary call prompt (tokens)")
    axes.legend(
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=8,
        frameon=False,
        title=_wrapped(model),
        title_fontsize=8,
    )
    axes.set_title(f"E4 · {model}: the summary call's prompt", loc="left", fontsize=9)


def _count_text(value: int | None) -> str:
    return "n/a" if value is None else str(value)


def _e4_figures(view: E4View) -> str:
    return "; ".join(
        f"{r.title}: {_count_text(r.summary_cached_tokens)} of "
        f"{_count_text(r.summary_prompt_tokens)} prompt tokens cached, prefix reuse "
        f"{r.prefix_reuse:.2%}"
        for r in view.engines
    )


def _e4_caption(sets: Sequence[tuple[str, E4View]]) -> str:
    figures = (
        [_e4_figures(view) for _, view in sets]
        if len(sets) == 1
        else [f"{model}: {_e4_figures(view)}" for model, view in sets]
    )
    return (
        "E4: the prompt tokens of each engine's summary call, split into those the server had "
        "cached and the rest, one panel per recorded model; prefix reuse is the share of the "
        "summary request's bytes that repeat the previous request's start. "
        + " · ".join(figures)
        + "."
    )


KEY = (
    "(a) prefix reuse: share of the summary request's bytes that repeat the previous request's "
    "start.\n(b) cached: share of the summary call's prompt tokens the server had cached."
)
"""What E4's two percentages are, written under its panels."""


def e4_plot(sets: Sequence[tuple[str, E4View]]) -> Plot:
    """``E4_cache``: one panel per recorded set, the model named in its title; the key under
    the panels says what the two percentages are."""
    with new_figure("E4_cache", len(sets), footer=True) as figure:
        footer = FOOTER_INCHES / figure.get_size_inches()[1]
        panels = figure.subplots(len(sets), 1, squeeze=False)[:, 0]
        for axes, (model, view) in zip(panels, sets, strict=True):
            _e4_panel(axes, model, view)
        engine = figure.get_layout_engine()
        if isinstance(engine, ConstrainedLayoutEngine):  # new_figure's layout
            engine.set(rect=(0, footer, 1, 1 - footer))
        figure.text(0.01, 0.01, KEY, fontsize=8, ha="left", va="bottom")
        return plot_of("E4_cache", "E4", _e4_caption(sets), figure)
