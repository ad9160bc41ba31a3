"""X-BENCH's report: planted facts kept by each condition at one budget, by kind and by depth,
against the tokens carried, and what each condition cost.

``PAGE.read`` reads ``X-BENCH.json`` back into the
:class:`~experiments.x_bench.view.XBenchView` that ``experiments/x_bench/`` wrote it from;
:func:`x_bench_section` renders it as the Measurements section of ``X-BENCH.md``.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import pandas as pd

from experiments.x_bench.equal_budget import NEVER_COMPACTED, never_compacted
from experiments.x_bench.evidence import facts_by_condition
from experiments.x_bench.headline import (
    HeadlineRow,
    answer_share,
    dominating,
    headline,
    headline_models,
)
from experiments.x_bench.headline_table import headline_table, share_cell
from experiments.x_bench.heldout_page import heldout_section
from experiments.x_bench.view import CellRecord, ConditionRecord, RunRecord, XBenchView
from lab import Evidence, Page, markdown_table

if TYPE_CHECKING:
    from lab import Plot

__all__ = ["PAGE", "X_BENCH_ABOUT", "XBenchView", "bench_markdown", "x_bench_section"]

X_BENCH_ABOUT = (
    "ctxlab's compaction-quality benchmark: which planted facts (identifiers, names, code words, "
    "decisions, updates, tool-only values) survive a compaction under each condition at one "
    "budget, and at what cost in tokens."
)


def _no_model(needs_model: bool) -> str:
    return "recorded summary model" if needs_model else "none"


def _conditions(view: XBenchView) -> pd.DataFrame:
    rows = []
    for c in view.conditions:
        run = c.status == "run"
        rows.append(
            {
                "condition": c.name,
                "what": c.title,
                "model": c.model if c.model != "none" else _no_model(c.needs_model),
                "conversations": c.conversations if run else c.status,
                "survival [95 % CI]": share_cell(c.survival, c.low, c.high) if run else "—",
                "carried tokens after a compaction (mean)": c.mean_carried_tokens
                if run and c.compactions
                else "—",
                "final context tokens (mean)": c.mean_final_tokens if run else "—",
                "compactions": _compactions(view.runs, c) if run else "—",
                "invented identifiers": c.invented if run else "—",
                "probe answers correct": _answers(view.runs, c.name, c.model) if run else "—",
            }
        )
    return pd.DataFrame(rows)


def _compactions(runs: list[RunRecord], c: ConditionRecord) -> str | int:
    """The condition's compactions, and on how many conversations it never compacted."""
    never = sum(never_compacted(r) for r in runs if (r.condition, r.model) == (c.name, c.model))
    return f"{c.compactions} ({NEVER_COMPACTED} on {never})" if never else c.compactions


def _never(view: XBenchView) -> list[str]:
    """One paragraph naming every run that never compacted (none: nothing)."""
    never = [r for r in view.runs if never_compacted(r)]
    if not never:
        return []
    runs = "; ".join(f"`{r.conversation}` under `{r.condition}` @ {r.model}" for r in never)
    return [
        f"Never compacted (the history stayed under the trigger under the condition, so it kept "
        f"everything by spending nothing: no comparison at equal budget, left out of the "
        f"headline, the paired differences and the claims that compare conditions): {runs}.\n"
    ]


def _answers(runs: list[RunRecord], name: str, model: str) -> str:
    """The share of the probe's questions answered correctly over a condition's runs on one
    model (``—`` for the runs with no model, which no probe answered)."""
    share = answer_share([r for r in runs if r.condition == name and r.model == model])
    return "—" if share is None else f"{share:.0%}"


def _grid(cells: list[CellRecord], groups: list[str]) -> pd.DataFrame:
    conditions = list(
        dict.fromkeys(
            f"{c.condition}" + ("" if c.model == "none" else f" @ {c.model}") for c in cells
        )
    )
    table: dict[str, dict[str, str]] = {name: {} for name in conditions}
    for c in cells:
        name = c.condition + ("" if c.model == "none" else f" @ {c.model}")
        table[name][c.group] = f"{c.survived}/{c.facts} ({share_cell(c.share, c.low, c.high)})"
    return pd.DataFrame(
        [{"condition": n, **{g: table[n].get(g, "—") for g in groups}} for n in conditions]
    )


def _cost(view: XBenchView) -> pd.DataFrame:
    """Tokens per condition, model and size: a model-free condition once (its runs with a
    model replay the same conversation to add the probe, at the same cost; ``ctxlab bench``
    with a provider has only those)."""
    rows: dict[tuple[str, str, str], dict[str, float]] = {}
    free = {(r.condition, r.conversation) for r in view.runs if r.model == "none"}
    for r in view.runs:
        if r.model != "none" and (r.condition, r.conversation) in free:
            continue
        key = (r.condition, r.model, r.size)
        row = rows.setdefault(
            key, {"n": 0, "agent": 0, "summary": 0, "net": 0, "net_cont": 0, "after": 0}
        )
        row["n"] += 1
        row["agent"] += r.agent_prompt_tokens
        row["summary"] += r.summary_tokens
        row["net"] += r.net_tokens
        row["net_cont"] += r.net_continuation_tokens
        row["after"] += r.turns_after_last_compaction
    return pd.DataFrame(
        [
            {
                "condition": condition,
                "model": model,
                "size": size,
                "conversations": int(v["n"]),
                "agent prompt tokens (mean)": round(v["agent"] / v["n"]),
                "summary-call tokens (mean)": round(v["summary"] / v["n"]),
                "net tokens vs full (mean)": round(v["net"] / v["n"]),
                "net over the continuation (mean)": round(v["net_cont"] / v["n"]),
                "turns after the last compaction (mean)": round(v["after"] / v["n"], 1),
            }
            for (condition, model, size), v in rows.items()
        ]
    )


def _pairs(view: XBenchView) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "condition": p.better + ("" if p.model == "none" else f" @ {p.model}"),
                "against": p.worse,
                "survival difference [95 % CI]": f"{p.difference:+.0%} [{p.low:+.0%}, "
                f"{p.high:+.0%}]",
                "conversations": p.conversations,
            }
            for p in view.pairs
        ]
    )


READING = (
    "Each of {n} seeded conversations ({sizes}) is played through the real agent loop by a "
    "scripted agent model under each condition, all at one budget per size, and scored with no "
    "model judge: a fact *survives* when its exact value is in the context the model sees after "
    "the conversation (its ten continuation turns included). Intervals are seeded 95 % "
    "bootstrap intervals over conversations. The format, the corpus and the scoring rules are in "
    "`docs/bench.md`."
)


def _stopped(view: XBenchView) -> list[str]:
    """One paragraph naming every run the thrash guard stopped (none: nothing)."""
    stopped = [r for r in view.runs if r.stopped_at is not None]
    if not stopped:
        return []
    runs = "; ".join(
        f"`{r.conversation}` under `{r.condition}` @ {r.model} at turn {r.stopped_at}"
        for r in stopped
    )
    return [
        "Stopped by the thrash guard (the context refilled to the trigger right after each of "
        "three compactions in a row, so the session ended there, as a user's would; the turns "
        f"after the stop were not played and their facts count as lost): {runs}.\n"
    ]


def _frontier(rows: list[HeadlineRow]) -> str:
    """Whether another condition keeps as many facts for fewer carried tokens."""
    better = dominating(rows)
    if better:
        return (
            "Dominated: " + ", ".join(f"`{c}`" for c in better) + " keeps at least as many "
            "facts for fewer carried tokens.\n"
        )
    return (
        "Not dominated: no other condition here keeps as many facts for fewer carried tokens "
        "(ctxlab's profile is on this trade-off's frontier).\n"
    )


def _headline(view: XBenchView) -> list[str]:
    """The answer first: ctxlab's profile against the reference prompt, masking and
    truncation, per recorded model, on the conversations recorded under both ctxlab and the
    reference prompt."""
    parts = ["### The answer: ctxlab's profile against the reference prompt, per model\n"]
    models = headline_models(view)
    if not models:
        return [*parts, "No model has ctxlab's profile and the reference prompt recorded yet.\n"]
    parts.append(
        "On each recorded model, the conversations recorded under both ctxlab's profile and the "
        "reference prompt, and every condition on exactly those (a model-free condition's "
        "survival and tokens are its run without a model; its answers, the model's probe of "
        "it). *Carried tokens* is the context right after a compaction (its final context for a "
        "run that never compacted), averaged per conversation: the budget a condition spends on "
        "the past.\n"
    )
    for model, size in models:
        rows = headline(view, model, size)
        ours, rival = rows[0], rows[1]
        parts += [
            f"**{model}**, {ours.conversations} conversations at {size.upper()}: ctxlab "
            f"keeps {ours.survival:.0%} of the planted facts carrying {ours.carried_tokens:.0f} "
            f"tokens, the reference prompt {rival.survival:.0%} carrying "
            f"{rival.carried_tokens:.0f}.\n",
            markdown_table(headline_table(rows)),
            _frontier(rows),
        ]
    return parts


def _budgets(view: XBenchView) -> str:
    return "; ".join(
        f"{b.size}: trigger {b.trigger_tokens:,}, tail {b.keep_tokens:,} tokens"
        for b in view.budgets
    )


NO_PAIRS = (
    "None: each condition is paired against `truncation` and `masking` on the same "
    "conversations, and this run played neither (add them to `--conditions`).\n"
)
NO_PAIRS_AT_BUDGET = (
    "None at equal budget: every pair had a run that never compacted (listed above), which is "
    "no comparison at one budget.\n"
)


def _no_pairs(view: XBenchView) -> str:
    """Why there is no paired difference: no baseline played, or none compacted."""
    baselines = {"truncation", "masking"} & {r.condition for r in view.runs}
    return NO_PAIRS_AT_BUDGET if baselines and any(map(never_compacted, view.runs)) else NO_PAIRS


def _tables(view: XBenchView) -> list[str]:
    """The conditions, who was stopped, survival by kind and by band, pairs and cost."""
    kinds = list(dict.fromkeys(c.group for c in view.by_kind))
    parts = ["### Conditions\n", markdown_table(_conditions(view)), *_stopped(view), *_never(view)]
    if view.not_recorded:
        parts.append(
            "Not recorded yet (their summaries and the probe are calls to a recorded model; "
            "nothing is shown for them until their cassettes exist): "
            + ", ".join(f"`{n}`" for n in view.not_recorded)
            + f". The reference prompt is {view.reference}.\n"
        )
    return [
        *parts,
        "### Survival by fact kind\n",
        markdown_table(_grid(view.by_kind, kinds)),
        "### Survival by depth band (where in the conversation the fact was planted)\n",
        markdown_table(_grid(view.by_band, ["early", "middle", "late"])),
        "### Paired differences (per-conversation survival)\n",
        markdown_table(_pairs(view)) if view.pairs else _no_pairs(view),
        "### Cost (estimator tokens)\n",
        markdown_table(_cost(view)),
    ]


def x_bench_section(view: XBenchView, claims: pd.DataFrame) -> str:
    """The conditions, survival by fact kind and by depth band, paired differences, cost."""
    counts = Counter(c.split("-")[1] for c in view.conversations)
    sizes = ", ".join(f"{n} at {b.size.upper()}" for b in view.budgets if (n := counts[b.size]))
    parts = [
        READING.format(n=len(view.conversations), sizes=sizes) + "\n",
        f"Budgets (AgentScope 2.0.3's estimator): {_budgets(view)}.\n",
        *_headline(view),
        *_tables(view),
        *heldout_section(view),
    ]
    return "\n".join(parts)


def bench_markdown(view: XBenchView) -> str:
    """``ctxlab bench``'s ``bench.md``: the report section's tables for the user's run (no
    claims, no plot: those judge the recorded models)."""
    names = ", ".join(c.name for c in view.conditions)
    return "\n".join(
        [
            "# ctxlab bench\n",
            f"{len(view.conversations)} conversation(s); conditions: {names}. A fact *survives* "
            "when its exact value is in the context the model sees at the end; intervals are "
            "seeded 95 % bootstrap intervals over conversations (docs/bench.md).\n",
            f"Budgets (AgentScope 2.0.3's estimator): {_budgets(view)}.\n",
            *_tables(view),
        ]
    )


def x_bench_plot(view: XBenchView) -> Plot:
    """``X-BENCH_tradeoff`` (:func:`experiments.x_bench.plot.x_bench_plot`), imported when it is
    drawn: ``ctxlab bench`` writes this page's tables, never its plot, and imports no
    matplotlib."""
    from experiments.x_bench.plot import x_bench_plot as draw

    return draw(view)


PAGE = Page(
    XBenchView,
    x_bench_section,
    X_BENCH_ABOUT,
    plot=x_bench_plot,
    evidence=Evidence(facts=facts_by_condition),
)
