"""X-BENCH's claims on each recorded model (kind ``ctxlab``: our own checks; the rows carry the
model, as every replayed experiment's do).

* X-BENCH-GATE-ADDS: with each engine (AgentScope 2.0.3, DeepSeek-Harness), the plain gate keeps
  more of the planted facts than the engine's summaries alone, over the conversations recorded
  under both, and never fewer on any one of them;
* X-BENCH-AS-OVERSIZE: AgentScope 2.0.3 applies a summary that is not smaller than the span it
  replaces (the context was no smaller right after the compaction): the seed's "no size check",
  seen on this model's recordings, with how often;
* X-BENCH-DSH-OVER-AS: at equal budget DeepSeek-Harness's summaries keep more of the planted
  facts than AgentScope 2.0.3's (the issue's pilot: 7/8 against 0/8 at 1K tokens), judged by the
  paired bootstrap interval lying above zero;
* X-BENCH-CTXLAB-WINS: ctxlab's own profile keeps more of the planted facts than the reference
  prompt and than masking, each paired by conversation with its interval above zero, while
  carrying no more tokens after a compaction than either (the issue's "at equal carried
  tokens", read strictly: more facts for no more tokens), with no invented identifier and no
  session stopped.

Every comparison pairs only conversations on which both runs compacted: a run that never did is
no comparison at equal budget (:mod:`experiments.x_bench.equal_budget`); how many were left
out is said in the claim's value or note.

A claim is judged for a model only where its cassettes hold what it compares (both conditions of
a pair, or an AgentScope run with a compaction); until then the model has no row. The claims are
a table of specs (:data:`MODEL_SPECS`) over one model's runs, judged per recorded model by
:func:`lab.claims.specs.evaluate`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from experiments.x_bench.equal_budget import NEVER_COMPACTED, at_equal_budget, never_compacted
from experiments.x_bench.headline import carried
from experiments.x_bench.scoring import paired
from experiments.x_bench.view import RunRecord, XBenchView
from lab import MODEL, Claim, ClaimSpec, Verdict, evaluate, split_set

__all__ = ["ENGINES", "MODEL_SPECS", "RIVALS", "ModelRuns", "model_claims"]

ENGINES = (("agentscope", "AgentScope"), ("dsh", "DSH"))
"""The engines whose gated and plain summaries X-BENCH-GATE-ADDS compares."""
Pair = tuple[RunRecord, RunRecord]
RIVALS = ("reference", "masking")
"""What X-BENCH-CTXLAB-WINS compares ctxlab's profile with."""
MIN_PAIRS = 4
"""The fewest conversations a paired comparison is judged on (fewer: ``differs``, too few), so
that an interval over one or two conversations, which is a point, cannot decide a claim."""


@dataclass(frozen=True)
class ModelRuns:
    """One recorded model's runs: what :data:`MODEL_SPECS` judge."""

    runs: tuple[RunRecord, ...]


def model_claims(view: XBenchView) -> list[Claim]:
    """Every model claim, per recorded model, in the order of the models' first runs."""
    sets = list(dict.fromkeys(r.model for r in view.runs if r.model != "none"))
    return [claim for cassette_set in sets for claim in _of_set(view.runs, cassette_set)]


def _of_set(runs: Sequence[RunRecord], cassette_set: str) -> tuple[Claim, ...]:
    provider, model = split_set(cassette_set)
    source = f"{provider}/{model}" if provider else model
    mine = ModelRuns(tuple(r for r in runs if r.model == cassette_set))
    return evaluate("X-BENCH", MODEL_SPECS, mine, source, model)


def _pairs(runs: Sequence[RunRecord], engine: str, *, equal_budget: bool = True) -> list[Pair]:
    """(engine alone, engine + gate) per conversation recorded under both."""
    return _paired(runs, engine, f"{engine}+gate", equal_budget=equal_budget)


def _paired(
    runs: Sequence[RunRecord], first: str, second: str, *, equal_budget: bool = True
) -> list[Pair]:
    """(``first``'s run, ``second``'s run) per conversation run under both, each of which
    compacted (a run that never did is no comparison at equal budget) unless ``equal_budget``
    is False (whether the model has the runs at all)."""
    runs = at_equal_budget(runs) if equal_budget else runs
    one = {r.conversation: r for r in runs if r.condition == first}
    other = {r.conversation: r for r in runs if r.condition == second}
    return [(one[c], other[c]) for c in one if c in other]


def _left_out(runs: Sequence[RunRecord], *names: str) -> str:
    """``; N run(s) never compacted, left out`` for ``names``' runs (nothing when none)."""
    left = sum(never_compacted(r) for r in runs if r.condition in names)
    return f"; {left} run(s) {NEVER_COMPACTED}, left out" if left else ""


def _difference(pairs: Sequence[Pair]) -> tuple[float, float, float]:
    """The paired survival difference (first − second) and its bootstrap interval."""
    return paired([a.survival for a, _ in pairs], [b.survival for _, b in pairs])


def _gate_adds(mine: ModelRuns) -> Verdict | None:
    if not all(_pairs(mine.runs, name, equal_budget=False) for name, _ in ENGINES):
        return None
    pairs = {name: _pairs(mine.runs, name) for name, _ in ENGINES}
    parts, worse, flat = [], [], []
    for name, title in ENGINES:
        engine = pairs[name]  # empty when every run of a pair never compacted: no more facts
        before = sum(p.survival for p, _ in engine) / max(len(engine), 1)
        after = sum(g.survival for _, g in engine) / max(len(engine), 1)
        parts.append(
            f"{title} {before:.0%} → {after:.0%} on {len(engine)}"
            + _left_out(mine.runs, name, f"{name}+gate")
        )
        worse += [f"{name} {p.conversation}" for p, g in engine if g.survival < p.survival]
        if after <= before:
            flat.append(title)
    return Verdict(
        "; ".join(parts) + f"; fewer with the gate on {len(worse)}",
        not worse and not flat,
        differs_note="the gate kept fewer on "
        + (", ".join(worse[:4]) or "none")
        + " or no more with "
        + (", ".join(flat) or "neither"),
    )


def _as_oversize(mine: ModelRuns) -> Verdict | None:
    runs = [r for r in mine.runs if r.condition == "agentscope" and r.compactions]
    if not runs:
        return None
    oversized = sum(r.oversized for r in runs)
    total = sum(r.compactions for r in runs)
    where = sorted({r.conversation for r in runs if r.oversized})
    return Verdict(
        f"{oversized} of {total} compactions ({oversized / total:.0%}) over {len(runs)} "
        f"conversations" + (f" ({', '.join(where)})" if where else ""),
        oversized > 0,
    )


def _dsh_over_as(mine: ModelRuns) -> Verdict | None:
    if not _paired(mine.runs, "dsh", "agentscope", equal_budget=False):
        return None
    pairs = _paired(mine.runs, "dsh", "agentscope")
    mean, low, high = _difference(pairs)
    dsh, agentscope = (sum(p[i].survival for p in pairs) / max(len(pairs), 1) for i in (0, 1))
    few = len(pairs) < MIN_PAIRS
    return Verdict(
        f"DSH {dsh:.0%}, AgentScope {agentscope:.0%}: {mean:+.0%} [{low:+.0%}, {high:+.0%}] "
        f"on {len(pairs)} conversations" + _left_out(mine.runs, "dsh", "agentscope"),
        low > 0 and not few,
        differs_note=f"too few conversations (under {MIN_PAIRS})"
        if few
        else "the interval does not lie above zero",
    )


def _ctxlab_wins(mine: ModelRuns) -> Verdict | None:
    if not all(_paired(mine.runs, "ctxlab", r, equal_budget=False) for r in RIVALS):
        return None
    rivals = {rival: _paired(mine.runs, "ctxlab", rival) for rival in RIVALS}
    ours = {r.conversation: r for pairs in rivals.values() for r, _ in pairs}.values()
    parts, short, counts = [], [], []
    for rival, pairs in rivals.items():
        mean, low, high = _difference(pairs)
        # tokens on the same conversations as the facts: like with like
        mine_t, theirs = carried([r for r, _ in pairs]), carried([r for _, r in pairs])
        parts.append(f"{mean:+.0%} [{low:+.0%}, {high:+.0%}] vs {rival}")
        counts.append(
            f"{mine_t:.0f}/{theirs:.0f} tokens and {len(pairs)} conversations with {rival}"
        )
        short += [f"too few conversations with {rival}"] if len(pairs) < MIN_PAIRS else []
        short += [f"no more facts than {rival}"] if low <= 0 else []
        short += [f"{mine_t:.0f} tokens against {rival}'s {theirs:.0f}"] if mine_t > theirs else []
    invented = sum(len(r.invented) for r in ours)
    stopped = sum(r.stopped_at is not None for r in ours)
    short += [f"{invented} invented identifier(s)"] if invented else []
    short += [f"{stopped} session(s) stopped"] if stopped else []
    return Verdict(
        ", ".join(parts) + (f"; invented {invented}" if invented else "")
        + (f"; stopped {stopped}" if stopped else ""),
        not short,
        note=f"{', '.join(counts)}, invented {invented}, stopped {stopped}"
        + f"{_left_out(mine.runs, 'ctxlab', *RIVALS)}; {WINS_RULE}",
        differs_note="; ".join(short),
    )  # fmt: skip


WINS_RULE = (
    "our own check, judged by, against each of the reference prompt and masking (at least "
    f"{MIN_PAIRS} conversations each), a paired survival interval above zero and mean "
    "carried tokens after a compaction no higher than the rival's on the same "
    "conversations, and no invented identifier or stopped session in ctxlab's runs"
)
MODEL_SPECS: tuple[ClaimSpec[ModelRuns], ...] = (
    ClaimSpec(
        "X-BENCH-GATE-ADDS",
        "The gate keeps more of the planted facts than each engine alone (AgentScope 2.0.3 "
        "and DeepSeek-Harness, each recorded with and without it), and never fewer on any "
        "conversation.",
        _gate_adds,
        kind="ctxlab",
        reason_class=MODEL,
        note="our own check, judged by a higher mean survival with the gate for both engines "
        "over the conversations recorded under both, and no conversation where the gate kept "
        "fewer",
    ),
    ClaimSpec(
        "X-BENCH-AS-OVERSIZE",
        "AgentScope 2.0.3 applies a summary that is not smaller than the span it replaces "
        "(it has no size check), so such a compaction leaves the context no smaller.",
        _as_oversize,
        kind="ctxlab",
        reason_class=MODEL,
        note="our own check, judged by at least one recorded AgentScope compaction after which "
        "the context was no smaller (the carried tokens not below the tokens before); the rate "
        "is this model's",
        differs_note="every recorded AgentScope summary was smaller than its span",
    ),
    ClaimSpec(
        "X-BENCH-DSH-OVER-AS",
        "At equal budget DeepSeek-Harness's summaries keep more of the planted facts than "
        "AgentScope 2.0.3's.",
        _dsh_over_as,
        kind="ctxlab",
        reason_class=MODEL,
        note="our own check, judged by the paired bootstrap interval of DSH's survival minus "
        f"AgentScope's (per conversation, both recorded, at least {MIN_PAIRS}) lying above zero",
    ),
    ClaimSpec(
        "X-BENCH-CTXLAB-WINS",
        "ctxlab's profile keeps more facts than the reference prompt and masking for no more "
        "tokens, inventing no identifier.",
        _ctxlab_wins,
        kind="ctxlab",
        reason_class=MODEL,
    ),
)
