"""Grouped bar charts: E3's context per round and E4's cached prompt tokens."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from experiments.report.per_experiment.e3 import E3View
from experiments.report.per_experiment.e4 import E4View
from experiments.report.plots.canvas import (
    ARTICLE,
    ARTICLE_LIGHT,
    COMPACTION,
    OURS,
    OURS_LIGHT,
    Plot,
    new_figure,
    png,
)
from experiments.report.tables import ARTICLE_E3_COMPACTED_ROUNDS, ARTICLE_E3_CONTEXT

__all__ = ["e3_context", "e3_plot", "e4_cache", "e4_plot"]


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
    with new_figure("E3_context") as figure:
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
        locator = axes.yaxis.get_major_locator()
        if isinstance(locator, MaxNLocator):  # the default AutoLocator is one
            locator.set_params(integer=True)
        axes.legend(loc="upper left", ncols=3, fontsize=8, frameon=False)
        axes.set_title("E3: context per round, trigger 5 / keep 2", loc="left", fontsize=10)
        return png(figure)


def e3_plot(view: E3View) -> Plot:
    """``E3_context`` with its caption."""
    caption = (
        "E3: messages in the agent's context when each call starts and ends, ours (blue) "
        "beside the article's (grey); triangles mark the rounds that compacted."
    )
    return Plot("E3_context", caption, e3_context(view))


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
    with new_figure("E4_cache") as figure:
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
        return png(figure)


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


def e4_plot(view: E4View) -> Plot:
    """``E4_cache`` with its caption."""
    return Plot("E4_cache", _e4_caption(view), e4_cache(view))
