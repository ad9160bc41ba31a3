"""X-BENCH's page, the held-out split: what the model-free parts and the candidate profile keep
on phrasing ctxlab's profile was not written against (``view.heldout``), apart from the tune
split's tables."""

from __future__ import annotations

import pandas as pd

from experiments.x_bench.conditions import CANDIDATE
from experiments.x_bench.headline_table import headline_table, share_cell
from experiments.x_bench.heldout_claims import heldout_headline
from experiments.x_bench.scoring import bootstrap
from experiments.x_bench.view import RunRecord, XBenchView
from lab import markdown_table

__all__ = ["heldout_section", "kind_table"]

HELDOUT_READING = (
    "The conversations below come from the held-out split (`experiments/x_bench/heldout/`): "
    "phrasing families written apart from ctxlab's profile, facts said in passing, corrections "
    "as updates, and a `chat` shape with no tool output. Nothing here is pooled with the tables "
    "above, which are the tune split's; the profile's shares were chosen on the tune split only."
)


def _free_table(runs: list[RunRecord]) -> pd.DataFrame:
    """Each model-free condition's survival and final context over the held-out conversations."""
    names = list(dict.fromkeys(r.condition for r in runs if r.model == "none"))
    rows = []
    for name in names:
        mine = [r for r in runs if (r.condition, r.model) == (name, "none")]
        mean, low, high = bootstrap([r.survival for r in mine])
        rows.append(
            {
                "condition": name,
                "conversations": len(mine),
                "survival [95 % CI]": share_cell(mean, low, high),
                "final context tokens (mean)": round(
                    sum(r.final_tokens for r in mine) / len(mine), 1
                ),
            }
        )
    return pd.DataFrame(rows)


KIND_READING = (
    "survival by fact kind on the held-out split: facts kept of facts planted, summed over the "
    "conversations each condition was played on (the model-free conditions on every held-out "
    "conversation). This is where a shortfall against a target comes from; it is read, never "
    "tuned on."
)


def _kept(runs: list[RunRecord], kind: str) -> str:
    """``kept/planted`` of one fact kind over ``runs`` (a dash when none planted it)."""
    kept = sum(kind in r.survived for r in runs)
    planted = kept + sum(kind in r.lost for r in runs)
    return f"{kept}/{planted} ({kept / planted:.0%})" if planted else "—"


def kind_table(runs: list[RunRecord], model: str) -> pd.DataFrame:
    """Fact kinds down; across, each condition recorded under ``model``, then each model-free
    one; ``kept/planted (share)`` in each cell."""
    mine = [r for r in runs if r.model in (model, "none")]
    columns = list(dict.fromkeys((r.condition, r.model) for r in mine))
    kinds = sorted({kind for r in mine for kind in (*r.survived, *r.lost)})
    by_column = {c: [r for r in mine if (r.condition, r.model) == c] for c in columns}

    def label(name: str, run_model: str) -> str:
        return f"{name} (no model)" if run_model == "none" else name

    return pd.DataFrame(
        [
            {"fact kind": kind} | {label(*c): _kept(by_column[c], kind) for c in columns}
            for kind in kinds
        ]
    )


def heldout_section(view: XBenchView) -> list[str]:
    """The held-out split's tables: the model-free conditions, then the candidate profile's
    headline per recorded model (or what is not recorded yet)."""
    if not view.heldout:
        return []
    ids = list(dict.fromkeys(r.conversation for r in view.heldout))
    parts = [
        "### The held-out split\n",
        f"{HELDOUT_READING} {len(ids)} conversations.\n",
        "Model-free conditions:\n",
        markdown_table(_free_table(view.heldout)),
    ]
    models = list(dict.fromkeys(r.model for r in view.heldout if r.model != "none"))
    tables = [(m, t) for m in models for t in heldout_headline(view.heldout, m) if t]
    if not tables:
        return [
            *parts,
            f"No model has the candidate profile (`{CANDIDATE}`) and the reference prompt "
            "recorded on held-out conversations yet.\n",
        ]
    for model, rows in tables:
        parts += [
            f"**{model}**, the candidate profile `{CANDIDATE}` on {rows[0].conversations} "
            "held-out conversations recorded under it and the reference prompt:\n",
            markdown_table(headline_table(rows, CANDIDATE)),
            f"**{model}**, {KIND_READING}\n",
            markdown_table(kind_table(view.heldout, model)),
        ]
    return parts
