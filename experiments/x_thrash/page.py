"""X-THRASH's report: the same scripted session with and without the thrash guard, side by side.

``PAGE.read`` reads ``X-THRASH.json`` back into the
:class:`~experiments.x_thrash.view.XThrashView` that ``experiments/x_thrash/`` wrote it from;
:func:`x_thrash_section` renders it as the Measurements section of ``X-THRASH.md``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from experiments.x_thrash.view import SessionRun, XThrashView
from lab import Page, fence, markdown_table

__all__ = ["PAGE", "X_THRASH_ABOUT", "SessionRun", "XThrashView", "x_thrash_section"]

X_THRASH_ABOUT = (
    "ctxlab's own check: a long scripted session under AgentScope's default thresholds, with "
    "and without ctxlab's thrash guard, counting compactions and summary calls per 100 turns."
)
"""What the experiment tests (its section of ``index.html`` opens with it)."""


def _side_by_side(view: XThrashView) -> pd.DataFrame:
    runs = {"AgentScope defaults": view.without_guard, "+ thrash guard": view.with_guard}

    def row(name: str, value: Any) -> dict[str, Any]:
        return {"": name, **{label: value(run) for label, run in runs.items()}}

    return pd.DataFrame(
        [
            row("turns / requests", lambda r: f"{r.turns:,} / {r.requests:,}"),
            row("compactions per 100 turns", lambda r: r.compactions_per_100_turns),
            row("summary calls per 100 turns", lambda r: r.summary_calls_per_100_turns),
            row("compactions (all)", lambda r: f"{r.compactions:,}"),
            row("fired by", lambda r: _listed(r.triggers)),
            row("skipped by the guard", lambda r: _listed(r.skipped)),
            row("largest request (tokens)", lambda r: f"{r.largest_request_tokens:,}"),
            row("prompt tokens per 100 turns", lambda r: f"{r.prompt_tokens_per_100_turns:,}"),
            row("messages in context at the end", lambda r: r.context_messages_at_end),
            row("pairing errors", lambda r: r.pairing_errors),
        ]
    )


def _listed(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} ×{v:,}" for k, v in counts.items()) or "—"


READING = (
    "A scripted model plays a long freight session (each turn: a question, a lookup tool call, "
    "its result, an answer). Left: AgentScope 2.0.3's default compaction; right: the same plus "
    "ctxlab's thrash guard (`harness/compaction/guards/thrash.py`). Tokens are AgentScope's "
    "estimator's."
)


def x_thrash_section(view: XThrashView, claims: pd.DataFrame) -> str:
    """Both runs side by side, the guard's last skip line, and the refill session."""
    run = view.refill
    refill = (
        f"stopped at call {run.stopped_at_call} after {run.compactions} compactions: "
        f"`{run.error or ''}`"
        if run.stopped_at_call
        else f"never stopped ({run.compactions} compactions)"
    )
    parts = [
        READING + "\n",
        f"Thresholds: {view.thresholds}.\n",
        "### With and without the guard\n",
        markdown_table(_side_by_side(view)),
    ]
    if view.with_guard.last_skip_line:
        parts += ["The guard's last log line:\n", fence(view.with_guard.last_skip_line)]
    parts += ["### The refill bound\n", f"Count mode, trigger 4 / keep 1: {refill}\n"]
    return "\n".join(parts)


PAGE = Page(XThrashView, x_thrash_section, X_THRASH_ABOUT)
