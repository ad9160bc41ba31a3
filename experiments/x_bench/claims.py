"""X-BENCH's claims: ctxlab's own checks (kind ``ctxlab``: no seed states these values), judged
from the model-free conditions, each by a rule that fails when the measurement does not hold.

* X-BENCH-FULL: the full context keeps at least 95 % of the planted facts on every conversation
  (the sanity ceiling; a defect in the replay or the scorer fails it);
* X-BENCH-TRUNCATION: truncation keeps exactly the facts whose planting turn is still in its
  window (the share computed from turn indices, against survival read from the context's text)
  and loses the rest;
* X-BENCH-MASKING: masking keeps every fact said outside a tool output, loses a tool-only fact
  once its output is masked, and is not bounded by the budget;
* X-BENCH-GATE-KINDS: the gate alone keeps every regex-shaped fact (identifiers, the
  near-duplicate, the tool-only seal number) and adds none a regex cannot see (names, code
  words, decisions, constraints, updates survive only while their turn is verbatim in the tail);
* X-BENCH-CTXLAB-GATE: ctxlab's model-free parts together (its profile's gate with
  definitions, the pin and the recall) keep more of those.

and, once per recorded model (each row carries the model; judged only where the model's
cassettes hold the conditions a claim compares):

* X-BENCH-GATE-ADDS: the plain gate keeps more facts with each engine's summaries than the
  engine alone, on every conversation recorded under both, for AgentScope and DSH;
* X-BENCH-AS-OVERSIZE: AgentScope 2.0.3 applies a summary that is not smaller than the span it
  replaces (it has no size check): how often, over every recorded AgentScope compaction.

and, on the held-out split alone, X-BENCH-HELDOUT-GATE and, per recorded model,
X-BENCH-HELDOUT-PROFILE (the candidate) and X-BENCH-HELDOUT-SHIPPED (the shipped profile)
(:mod:`experiments.x_bench.heldout_claims`).

Each is a spec in a table (:data:`SPECS`; per recorded model,
:data:`~experiments.x_bench.model_claims.MODEL_SPECS`), judged by
:func:`lab.claims.specs.evaluate`. Order replay (the mutation matrix) plays the recorded runs too
(:mod:`experiments.x_bench.recorded`): GATE_OFF flips the first, AS_SIZE_CHECK_ALWAYS the second.
"""

from __future__ import annotations

from collections.abc import Sequence

from experiments.x_bench.heldout_claims import heldout_claims
from experiments.x_bench.model_claims import model_claims
from experiments.x_bench.view import RunRecord, XBenchView
from lab import Claim, ClaimSpec, Verdict, evaluate

__all__ = ["FULL_FLOOR", "REGEX_KINDS", "SPECS", "claims"]

FULL_FLOOR = 0.95
REGEX_KINDS = frozenset({"identifier", "near_duplicate", "tool_only"})
"""Fact kinds whose values have an identifier's shape (what the gate's extractor finds)."""


def _runs(view: XBenchView, condition: str) -> list[RunRecord]:
    return [r for r in view.runs if r.condition == condition and r.model == "none"]


def _kind_of(fact_id: str) -> str:
    return fact_id.split("-", 1)[0]


def claims(view: XBenchView) -> tuple[Claim, ...]:
    """Judge X-BENCH's model-free measurements (:data:`SPECS`), then each recorded model's."""
    return (
        *evaluate("X-BENCH", SPECS, view, "scripted"),
        *model_claims(view),
        *heldout_claims(view),
    )


def _mean(runs: Sequence[RunRecord]) -> float:
    return sum(r.survival for r in runs) / len(runs) if runs else 0.0


def _full(view: XBenchView) -> Verdict:
    runs = _runs(view, "full")
    lowest = min((r.survival for r in runs), default=0.0)
    return Verdict(
        f"{_mean(runs):.0%} over {len(runs)} conversations; lowest {lowest:.0%}",
        bool(runs) and lowest >= FULL_FLOOR,
    )


def _truncation(view: XBenchView) -> Verdict:
    runs = _runs(view, "truncation")
    unequal = [r.conversation for r in runs if r.window_share != r.survival]
    mean = _mean(runs)
    return Verdict(
        f"{mean:.1%} kept over {len(runs)} conversations; survival equals the window's share "
        f"on {len(runs) - len(unequal)} of {len(runs)}",
        bool(runs) and not unequal and mean < 1.0,
        differs_note="survival and the window's share disagree on "
        + (", ".join(unequal[:4]) or "none")
        + ", or nothing was lost",
    )


def _masking(view: XBenchView) -> Verdict:
    runs = _runs(view, "masking")
    spoken = [r.conversation for r in runs if any(_kind_of(f) != "tool_only" for f in r.lost)]
    tool_kept = [
        r.conversation for r in runs if "tool_only" in r.survived and "tool_only" not in r.in_tail
    ]
    triggers = {b.size: b.trigger_tokens for b in view.budgets}
    unbounded = [r for r in runs if r.final_tokens > triggers.get(r.size, 0)]
    tool_lost = sum("tool_only" in r.lost for r in runs)
    return Verdict(
        f"facts outside tool outputs kept on {len(runs) - len(spoken)} of {len(runs)} "
        f"conversations; tool-only fact lost on {tool_lost}; final context above the trigger "
        f"on {len(unbounded)}",
        bool(runs) and not spoken and not tool_kept and tool_lost > 0 and bool(unbounded),
    )


def _gate(view: XBenchView) -> Verdict:
    runs = _runs(view, "gate")
    regex_lost = sorted({f for r in runs for f in r.lost if _kind_of(f) in REGEX_KINDS})
    beyond = sorted(
        {
            f
            for r in runs
            for f in r.survived
            if _kind_of(f) not in REGEX_KINDS and f not in r.in_tail
        }
    )
    kept_invisible = sum(_kind_of(f) not in REGEX_KINDS for r in runs for f in r.survived)
    total_invisible = 5 * len(runs)
    return Verdict(
        f"regex-shaped facts lost: {len(regex_lost)} kind(s); facts no regex sees kept "
        f"{kept_invisible} of {total_invisible}, {len(beyond)} of them outside the tail",
        bool(runs) and not regex_lost and not beyond,
        differs_note="the gate lost a regex-shaped fact ("
        + (", ".join(regex_lost) or "none")
        + ") or kept one no regex sees outside the tail ("
        + (", ".join(beyond) or "none")
        + ")",
    )


def _invisible(runs: list[RunRecord]) -> int:
    return sum(_kind_of(f) not in REGEX_KINDS for r in runs for f in r.survived)


def _ctxlab_gate(view: XBenchView) -> Verdict:
    plain, ours = _runs(view, "gate"), _runs(view, "ctxlab-gate")
    regex_lost = sorted({f for r in ours for f in r.lost if _kind_of(f) in REGEX_KINDS})
    kept, before = _invisible(ours), _invisible(plain)
    carried = sum(r.final_tokens for r in ours) / len(ours) if ours else 0.0
    carried_plain = sum(r.final_tokens for r in plain) / len(plain) if plain else 0.0
    total = 5 * len(ours)
    return Verdict(
        f"facts no regex sees kept {kept} of {total} (plain gate {before}); regex-shaped lost "
        f"{len(regex_lost)}; final context {carried:.0f} tokens (plain gate {carried_plain:.0f})",
        bool(ours) and kept > before and not regex_lost,
    )


SPECS: tuple[ClaimSpec[XBenchView], ...] = (
    ClaimSpec(
        "X-BENCH-FULL",
        "With no compaction the context keeps every planted fact: at least 95 % on every "
        "conversation (the benchmark's sanity ceiling).",
        _full,
        kind="ctxlab",
        note=f"our own check, judged by the lowest per-conversation survival ≥ {FULL_FLOOR:.0%}",
        differs_note="the full context lost a planted fact (a replay or scoring defect)",
    ),
    ClaimSpec(
        "X-BENCH-TRUNCATION",
        "Truncation at the same budget keeps exactly the facts whose turn is still in its "
        "window and loses every other one.",
        _truncation,
        kind="ctxlab",
        note="our own check, judged by survival (the values in the context's text) = the share "
        "of facts whose planting turn is in the kept window (from turn indices), on every "
        "conversation, and survival < 100 %",
    ),
    ClaimSpec(
        "X-BENCH-MASKING",
        "Masking old tool outputs (JetBrains' baseline) keeps every fact said in a user or "
        "assistant turn, loses a fact that was only in a tool output once that output is "
        "masked, and does not keep the context within the budget.",
        _masking,
        kind="ctxlab",
        note="our own check, judged by no lost fact but tool-only ones, no tool-only fact kept "
        "outside the verbatim tail, ≥ 1 tool-only fact lost and ≥ 1 final context above the "
        "trigger",
        differs_note="masking lost a spoken fact, kept a masked tool output's value, or stayed "
        "in budget",
    ),
    ClaimSpec(
        "X-BENCH-GATE-KINDS",
        "The gate alone (no model) keeps every regex-shaped fact (identifiers, the "
        "near-duplicate, a value only in a tool output) and none that a regex cannot see "
        "(a name, a code word, a decision, a constraint, an update) beyond the verbatim tail.",
        _gate,
        kind="ctxlab",
        note="our own check, judged by no regex-shaped fact lost and every kept name, code word, "
        "decision, constraint or update in the verbatim tail (the gate added none of them)",
    ),
    ClaimSpec(
        "X-BENCH-CTXLAB-GATE",
        "ctxlab's model-free parts together (its profile's gate with definitions, reasons and "
        "rules, the pin of the user's own words and the recall from the log) keep more of the "
        "facts no regex sees than the plain gate and still every regex-shaped one.",
        _ctxlab_gate,
        kind="ctxlab",
        note="our own check, judged by more names, code words, decisions, constraints and "
        "updates kept than the plain gate over the same conversations, and no regex-shaped fact "
        "lost; the gate's phrase patterns and this corpus's phrasing are both ours, so this is "
        "an upper bound, not evidence on other phrasings (ctxlab bench --conversations measures "
        "yours)",
        differs_note="ctxlab-gate kept no more than the plain gate, or lost a regex-shaped fact",
    ),
)
