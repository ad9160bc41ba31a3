"""E4's plot: the summary calls' prompt tokens cached and not cached, per engine and model."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes

from experiments.e4.view import E4View, EngineRun
from lab import FOOTER_INCHES, OURS, Margins, Plot, PlotSize, new_figure, plot_of, wrapped_model

__all__ = ["MARGINS", "SIZE", "e4_plot"]

SIZE: PlotSize = (6.8, 3.9)
"""Its size in inches: width, and the height of one panel (:data:`~lab.report.plots.PlotSize`)."""
MARGINS = Margins(left=0.7, right=1.72, top=0.26, bottom=FOOTER_INCHES + 0.47, between=0.7)
"""The y axis on the left, the legend (the model's name on two lines) on the right, the title
above each panel, two lines of engine under it; the key (:data:`KEY`) in the footer."""

CACHED, NOT_CACHED = OURS, "#E69F00"


def _e4_panel(axes: Axes, model: str, view: E4View) -> None:
    """E4's summary calls: prompt tokens cached and not cached, grouped per engine."""
    runs = view.engines
    top = max([r.summary_prompt_tokens or 0 for r in runs] + [1])
    positions = np.arange(len(runs), dtype=float)
    _cache_bars(axes, runs, positions)
    _reuse_notes(axes, runs, positions, top)
    axes.set_xticks(positions, [_engine_label(r) for r in runs])
    axes.set_xlim(-0.6, len(runs) - 0.4)
    axes.set_ylim(0, top * 1.42)
    axes.set_ylabel("summary call prompt (tokens)")
    axes.legend(
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        fontsize=8,
        frameon=False,
        title=wrapped_model(model),
        title_fontsize=8,
    )
    axes.set_title(f"E4 · {model}: the summary call's prompt", loc="left", fontsize=9)


def _cache_bars(axes: Axes, runs: Sequence[EngineRun], positions: np.ndarray) -> None:
    """Two bars per engine: the summary call's prompt tokens cached, and the rest."""
    cached = [r.summary_cached_tokens for r in runs]
    uncached = [
        None if r.summary_prompt_tokens is None or c is None else r.summary_prompt_tokens - c
        for r, c in zip(runs, cached, strict=True)
    ]
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


def _reuse_notes(axes: Axes, runs: Sequence[EngineRun], positions: np.ndarray, top: int) -> None:
    """Over each engine's bars: its prefix reuse (a) and its cached share (b)."""
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


def _engine_label(run: EngineRun) -> str:
    return f"{run.title}\n(request: {run.summary_request_messages} " + (
        "message)" if run.summary_request_messages == 1 else "messages)"
    )


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
    with new_figure(SIZE, len(sets), footer=True, margins=MARGINS) as figure:
        panels = MARGINS.panels(figure, len(sets))[:, 0]
        for axes, (model, view) in zip(panels, sets, strict=True):
            _e4_panel(axes, model, view)
        figure.text(0.01, 0.01, KEY, fontsize=8, ha="left", va="bottom")
        return plot_of("E4_cache", "E4", _e4_caption(sets), figure)
