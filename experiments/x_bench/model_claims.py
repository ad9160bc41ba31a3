"""X-BENCH's claims on each recorded model (kind ``ctxlab``: our own checks; the rows carry the
model, as every replayed experiment's do).

* X-BENCH-GATE-ADDS: with each engine (AgentScope 2.0.3, DeepSeek-Harness), the plain gate keeps
  more of the planted facts than the engine's summaries alone, over the conversations recorded
  under both, and never fewer on any one of them;
* X-BENCH-AS-OVERSIZE: AgentScope 2.0.3 applies a summary that is not smaller than the span it
  replaces (the context was no smaller right after the compaction): the seed's "no size check",
  seen on this model's recordings, with how often.

A claim is judged for a model only where its cassettes hold what it compares (both conditions of
a pair, or an AgentScope run with a compaction); until then the model has no row.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from experiments.lab.cassette_sets import split_set
from experiments.lab.claims import Claim
from experiments.x_bench.view import RunRecord, XBenchView

__all__ = ["ENGINES", "model_claims"]

ENGINES = (("agentscope", "AgentScope"), ("dsh", "DSH"))
"""The engines whose gated and plain summaries X-BENCH-GATE-ADDS compares."""


def model_claims(view: XBenchView) -> list[Claim]:
    """Every model claim, per recorded model, in the order of the models' first runs."""
    sets = list(dict.fromkeys(r.model for r in view.runs if r.model != "none"))
    return [claim for cassette_set in sets for claim in _of_set(view.runs, cassette_set)]


def _of_set(runs: Sequence[RunRecord], cassette_set: str) -> Iterator[Claim]:
    mine = [r for r in runs if r.model == cassette_set]
    pairs = {name: _pairs(mine, name) for name, _ in ENGINES}
    if all(pairs.values()):
        yield _gate_adds(cassette_set, pairs)
    agentscope = [r for r in mine if r.condition == "agentscope" and r.compactions]
    if agentscope:
        yield _as_oversize(cassette_set, agentscope)


def _claim(cassette_set: str, claim_id: str, text: str, value: str, ok: bool, rule: str,
           why: str) -> Claim:  # fmt: skip
    provider, model = split_set(cassette_set)
    note = rule if ok else f"{why}; {rule}"
    return Claim(
        "X-BENCH", claim_id, text, "", value, "match" if ok else "differs",
        f"{provider}/{model}" if provider else model, note, kind="ctxlab", model=model,
    )  # fmt: skip


def _pairs(runs: Sequence[RunRecord], engine: str) -> list[tuple[RunRecord, RunRecord]]:
    """(engine alone, engine + gate) per conversation recorded under both."""
    plain = {r.conversation: r for r in runs if r.condition == engine}
    gated = {r.conversation: r for r in runs if r.condition == f"{engine}+gate"}
    return [(plain[c], gated[c]) for c in plain if c in gated]


def _gate_adds(cassette_set: str, pairs: dict[str, list[tuple[RunRecord, RunRecord]]]) -> Claim:
    parts, worse, flat = [], [], []
    for name, title in ENGINES:
        engine = pairs[name]
        before = sum(p.survival for p, _ in engine) / len(engine)
        after = sum(g.survival for _, g in engine) / len(engine)
        parts.append(f"{title} {before:.0%} → {after:.0%} on {len(engine)}")
        worse += [f"{name} {p.conversation}" for p, g in engine if g.survival < p.survival]
        if after <= before:
            flat.append(title)
    return _claim(
        cassette_set,
        "X-BENCH-GATE-ADDS",
        "The gate keeps more of the planted facts than each engine alone (AgentScope 2.0.3 "
        "and DeepSeek-Harness, each recorded with and without it), and never fewer on any "
        "conversation.",
        "; ".join(parts) + f"; fewer with the gate on {len(worse)}",
        not worse and not flat,
        "our own check, judged by a higher mean survival with the gate for both engines over "
        "the conversations recorded under both, and no conversation where the gate kept fewer",
        "the gate kept fewer on "
        + (", ".join(worse[:4]) or "none")
        + " or no more with "
        + (", ".join(flat) or "neither"),
    )


def _as_oversize(cassette_set: str, runs: Sequence[RunRecord]) -> Claim:
    oversized = sum(r.oversized for r in runs)
    total = sum(r.compactions for r in runs)
    where = sorted({r.conversation for r in runs if r.oversized})
    return _claim(
        cassette_set,
        "X-BENCH-AS-OVERSIZE",
        "AgentScope 2.0.3 applies a summary that is not smaller than the span it replaces "
        "(it has no size check), so such a compaction leaves the context no smaller.",
        f"{oversized} of {total} compactions ({oversized / total:.0%}) over {len(runs)} "
        f"conversations" + (f" ({', '.join(where)})" if where else ""),
        oversized > 0,
        "our own check, judged by at least one recorded AgentScope compaction after which the "
        "context was no smaller (the carried tokens not below the tokens before); the rate is "
        "this model's",
        "every recorded AgentScope summary was smaller than its span",
    )
