"""X-BENCH's evidence: for each conversation, which planted facts a condition kept, lost or
invented, read from the runs of ``X-BENCH.json``.

X-BENCH judges its claims on these per-conversation outcomes (survival, the facts lost, the
identifiers invented), not on single calls, so its evidence page shows them for the conditions
the claim compares (:data:`CLAIM_CONDITIONS`), for the claim's model (``none`` for the model-free
conditions), with the cassette each recorded run replayed; its page hands
:func:`facts_by_condition` to the report (:attr:`lab.report.piece.Evidence.facts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from experiments.x_bench.conditions import CANDIDATE
from lab import ConditionRuns, FactsRow

__all__ = ["CLAIM_CONDITIONS", "HELDOUT_CLAIM_CONDITIONS", "facts_by_condition"]

CLAIM_CONDITIONS: dict[str, tuple[str, ...]] = {
    "X-BENCH-FULL": ("full",),
    "X-BENCH-TRUNCATION": ("truncation",),
    "X-BENCH-MASKING": ("masking",),
    "X-BENCH-GATE-KINDS": ("gate",),
    "X-BENCH-CTXLAB-GATE": ("ctxlab-gate", "gate"),
    "X-BENCH-GATE-ADDS": ("agentscope", "agentscope+gate", "dsh", "dsh+gate"),
    "X-BENCH-AS-OVERSIZE": ("agentscope",),
    "X-BENCH-DSH-OVER-AS": ("dsh", "agentscope"),
    "X-BENCH-CTXLAB-WINS": ("ctxlab", "reference", "masking"),
}
"""The conditions each X-BENCH claim compares; a claim not listed shows every condition."""

HELDOUT_CLAIM_CONDITIONS: dict[str, tuple[str, ...]] = {
    "X-BENCH-HELDOUT-PROFILE": (CANDIDATE, "reference", "truncation"),
    "X-BENCH-HELDOUT-SHIPPED": ("ctxlab", "reference", "truncation"),
    "X-BENCH-HELDOUT-GATE": ("ctxlab-gate", "truncation"),
}
"""The held-out claims: the conditions each compares, read from the held-out runs."""


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def facts_by_condition(
    data: Mapping[str, Any], claim_id: str, model_set: str
) -> list[ConditionRuns]:
    """The runs of ``claim_id``'s conditions for ``model_set`` (a cassette set's folder name,
    or ``none`` for the model-free runs), one table per condition, conversations in the
    JSON's order."""
    split = "heldout" if claim_id in HELDOUT_CLAIM_CONDITIONS else "runs"
    runs = [r for r in data.get(split) or [] if isinstance(r, dict)]
    titles = {
        str(c.get("name")): str(c.get("title", ""))
        for c in data.get("conditions") or []
        if isinstance(c, dict)
    }
    named = {**CLAIM_CONDITIONS, **HELDOUT_CLAIM_CONDITIONS}
    wanted: Sequence[str] = named.get(claim_id) or list(
        dict.fromkeys(str(r.get("condition")) for r in runs)
    )
    found = []
    for condition in wanted:
        own = [r for r in runs if r.get("condition") == condition and r.get("model") == model_set]
        if not own:
            continue
        rows = tuple(
            FactsRow(
                str(r.get("conversation", "")),
                _strings(r.get("survived")),
                _strings(r.get("lost")),
                _strings(r.get("invented")),
                int(r.get("compactions") or 0),
                str(r.get("final_tokens", "")),
                ""
                if model_set == "none"
                else f"cassettes/X-BENCH/{model_set}/{r.get('conversation')}--{condition}.json",
            )
            for r in own
        )
        found.append(ConditionRuns(condition, titles.get(condition, ""), rows))
    return found
