"""X-THRASH's report: the same scripted session with and without the thrash guard, side by side.

:func:`x_thrash_view` reads ``X-THRASH.json`` (see ``experiments/x_thrash.py``) into an
:class:`XThrashView`; :func:`x_thrash_section` renders it as the Measurements section of
``X-THRASH.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from experiments.report.markdown import fence, markdown_table
from experiments.report.shape import get

__all__ = ["SessionRun", "XThrashView", "x_thrash_section", "x_thrash_view"]


@dataclass(frozen=True)
class SessionRun:
    """One run of the long session."""

    turns: int
    requests: int
    compactions: int
    summary_calls: int
    compactions_per_100_turns: float
    summary_calls_per_100_turns: float
    triggers: dict[str, int]
    largest_request_tokens: int
    prompt_tokens_per_100_turns: int
    context_messages_at_end: int
    pairing_errors: int
    skipped: dict[str, int]
    """The guard's skips by reason (empty without a guard)."""
    last_skip_line: str


@dataclass(frozen=True)
class XThrashView:
    """X-THRASH: the config, both runs and the refill session."""

    thresholds: str
    without_guard: SessionRun
    with_guard: SessionRun
    refill_compactions: int
    refill_stopped_at: int | None
    refill_error: str


def _counts(data: Any, key: str) -> dict[str, int]:
    return {str(k): int(v) for k, v in get(data, key, Mapping).items()}


def _run(data: Any) -> SessionRun:
    guard = get(data, "guard", Mapping, optional=True) or {}
    last = get(guard, "last_skip", Mapping, optional=True) if guard else None
    return SessionRun(
        turns=get(data, "turns", int),
        requests=get(data, "requests", int),
        compactions=get(data, "compactions", int),
        summary_calls=get(data, "summary_calls", int),
        compactions_per_100_turns=float(get(data, "compactions_per_100_turns", (int, float))),
        summary_calls_per_100_turns=float(get(data, "summary_calls_per_100_turns", (int, float))),
        triggers=_counts(data, "triggers"),
        largest_request_tokens=get(data, "largest_request_tokens", int),
        prompt_tokens_per_100_turns=get(data, "prompt_tokens_per_100_turns", int),
        context_messages_at_end=get(data, "context_messages_at_end", int),
        pairing_errors=get(data, "pairing_errors", int),
        skipped=_counts(guard, "skipped") if guard else {},
        last_skip_line=get(last, "line", str) if last else "",
    )


def x_thrash_view(data: Mapping[str, Any]) -> XThrashView:
    """Read X-THRASH's JSON (see ``experiments/x_thrash.py``, ``measure``)."""
    refill = get(data, "refill", Mapping)
    return XThrashView(
        thresholds=get(data, "thresholds", str),
        without_guard=_run(get(data, "without_guard", Mapping)),
        with_guard=_run(get(data, "with_guard", Mapping)),
        refill_compactions=get(refill, "compactions", int),
        refill_stopped_at=get(refill, "stopped_at_call", int, optional=True),
        refill_error=get(refill, "error", str, optional=True) or "",
    )


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
    "ctxlab's thrash guard (`harness/compaction/thrash.py`). Tokens are AgentScope's estimator's."
)


def x_thrash_section(view: XThrashView, claims: pd.DataFrame) -> str:
    """Both runs side by side, the guard's last skip line, and the refill session."""
    refill = (
        f"stopped at call {view.refill_stopped_at} after {view.refill_compactions} compactions: "
        f"`{view.refill_error}`"
        if view.refill_stopped_at
        else f"never stopped ({view.refill_compactions} compactions)"
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
