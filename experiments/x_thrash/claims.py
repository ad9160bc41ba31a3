"""X-THRASH's claims: ctxlab's own checks (kind ``ctxlab``: no seed states these values), each
judged by a rule strict enough to fail — a guard that does not cut the compaction rate fails
X-THRASH-GUARDED, one that simply turns compaction off fails X-THRASH-PRESSURE. A table of
specs (:data:`SPECS`), judged by :func:`lab.claims.specs.evaluate`."""

from __future__ import annotations

from experiments.x_thrash.view import SessionRun, XThrashView
from lab import Claim, ClaimSpec, Verdict, evaluate

__all__ = ["GUARD_CUT", "SPECS", "THRASH_SHARE", "claims"]

REFILL_TRIGGER = 4
"""The refill session's message trigger (keep 1): every call after the first compaction
reaches it again."""
THRASH_SHARE = 0.9
"""Without the guard, at least this share of requests must compact for the thrash to count as
reproduced ("before almost every request")."""
GUARD_CUT = 10
"""The guard must cut compactions and summary calls per 100 turns at least this many times."""


def _rate(run: SessionRun) -> str:
    return (
        f"{run.compactions_per_100_turns} per 100 turns "
        f"({run.compactions:,} in {run.turns:,} turns)"
    )


def _summary_rate(run: SessionRun) -> str:
    return (
        f"{run.summary_calls_per_100_turns} per 100 turns "
        f"({run.summary_calls:,} in {run.turns:,} turns)"
    )


def claims(view: XThrashView) -> tuple[Claim, ...]:
    """Judge X-THRASH's measurements: :data:`SPECS` on ``view`` (its source is always
    ``scripted``)."""
    return evaluate("X-THRASH", SPECS, view, "scripted")


def _baseline(view: XThrashView) -> Verdict:
    bare = view.without_guard
    share = bare.compactions / bare.requests if bare.requests else 0.0
    after = bare.context_messages_at_end
    return Verdict(
        f"{_rate(bare)}; {share:.1%} of {bare.requests:,} requests; {after} messages "
        "after the last compaction",
        share >= THRASH_SHARE and after > view.trigger_messages,
        note=f"our own check, judged by compactions ≥ {THRASH_SHARE:.0%} of requests and more "
        f"than {view.trigger_messages} messages after a compaction; a scripted session of "
        "an earlier version measured 1,874 compactions in 962 turns",
        text="Under AgentScope 2.0.3's defaults (trigger 50 messages, keepTokens dynamic = "
        f"{view.keep_tokens:,} tokens) and no guard, a long scripted session compacts before "
        "almost every request, because the kept tail itself holds more than 50 messages.",
    )


def _guarded(view: XThrashView) -> Verdict:
    bare, guarded = view.without_guard, view.with_guard
    ok = guarded.compactions * GUARD_CUT <= bare.compactions and bare.compactions > 0
    return Verdict(f"{_rate(guarded)} with the guard, {_rate(bare)} without", ok)


def _summary_calls(view: XThrashView) -> Verdict:
    bare, guarded = view.without_guard, view.with_guard
    one_each = all(run.summary_calls == run.compactions for run in (bare, guarded))
    cut = guarded.summary_calls * GUARD_CUT <= bare.summary_calls and bare.summary_calls > 0
    return Verdict(
        f"{_summary_rate(guarded)} with the guard, {_summary_rate(bare)} without", one_each and cut
    )


def _pressure(view: XThrashView) -> Verdict:
    guarded = view.with_guard
    triggers = guarded.triggers
    fired = ", ".join(f"{k} ×{v}" for k, v in triggers.items()) or "none"
    token_only = bool(triggers) and all("tokens" in t for t in triggers)
    under = guarded.largest_request_tokens < view.context_window
    return Verdict(
        f"{guarded.compactions} compaction(s), fired by {fired}; largest request "
        f"{guarded.largest_request_tokens:,} of {view.context_window:,} tokens",
        token_only and under,
    )


def _skips(view: XThrashView) -> Verdict:
    guarded = view.with_guard
    skipped = sum(guarded.skipped.values())
    log_lines = guarded.guard.log_lines if guarded.guard else 0
    reasons = ", ".join(f"{k} {v:,}" for k, v in guarded.skipped.items()) or "none"
    return Verdict(
        f"{skipped:,} skipped ({reasons}); {log_lines:,} log lines",
        skipped > 0 and log_lines == skipped,
    )


def _pairs(view: XThrashView) -> Verdict:
    bare, guarded = view.without_guard, view.with_guard
    broken = bare.pairing_errors + guarded.pairing_errors
    total = bare.compactions + guarded.compactions
    return Verdict(
        f"{broken} of {bare.requests + guarded.requests:,} requests with a broken pair after "
        f"{total:,} compactions",
        broken == 0 and total > 0,
    )


def _refill(view: XThrashView) -> Verdict:
    refill = view.refill
    bound = view.guard_config.max_refills
    error = refill.error or ""
    # a call adds a user message and an answer: the request of call n holds 2n − 1 messages,
    # so the first compaction is at call ceil((trigger + 1) / 2) and the bound stops the session
    # that many calls later (each call a refill)
    first = -(-(REFILL_TRIGGER + 1) // 2)
    ok = (
        error.startswith("CompactionThrashError")
        and refill.compactions == bound
        and refill.stopped_at_call == first + bound
    )
    return Verdict(
        f"{refill.compactions} compactions, then stopped at call {refill.stopped_at_call}"
        if refill.stopped_at_call
        else f"{refill.compactions} compactions, never stopped",
        ok,
        note=f"our own check, judged by CompactionThrashError after exactly {bound} compactions, "
        f"at call {first} + {bound} (count mode, trigger 4 / keep 1, every call refills)",
        text="When the context refills right after compacting, the guard stops the session with "
        f"CompactionThrashError at refill number {bound} in a row (as Claude Code's thrash-loop "
        f"guard does), after the first compaction and {bound - 1} refills ran.",
    )


def _tokens(view: XThrashView) -> Verdict:
    bare, guarded = view.without_guard, view.with_guard
    with_guard, without = guarded.prompt_tokens_per_100_turns, bare.prompt_tokens_per_100_turns
    return Verdict(
        f"{with_guard:,} prompt tokens per 100 turns with the guard, {without:,} without "
        f"({with_guard / without:.1f}×)"
        if without
        else "no prompt tokens without the guard",
        with_guard > without > 0,
    )


SPECS: tuple[ClaimSpec[XThrashView], ...] = (
    ClaimSpec(
        "X-THRASH-BASELINE",
        "Under AgentScope 2.0.3's defaults and no guard, a long scripted session compacts "
        "before almost every request (the verdict names the keep budget).",
        _baseline,
        kind="ctxlab",
        differs_note="the thrash did not reproduce",
    ),
    ClaimSpec(
        "X-THRASH-GUARDED",
        "With ctxlab's thrash guard the same session compacts at least ten times less often.",
        _guarded,
        kind="ctxlab",
        note="our own check, judged by compactions with the guard × "
        f"{GUARD_CUT} ≤ compactions without",
        differs_note="the guard did not cut the compaction rate tenfold",
    ),
    ClaimSpec(
        "X-THRASH-SUMMARY-CALLS",
        "Every compaction is one summary call and a skipped one makes none, so the guard cuts "
        "summary calls as much as compactions.",
        _summary_calls,
        kind="ctxlab",
        note="our own check, judged by summary calls = compactions in both runs and a tenfold cut",
        differs_note="summary calls and compactions disagree, or the cut is less than tenfold",
    ),
    ClaimSpec(
        "X-THRASH-PRESSURE",
        "The guard does not turn compaction off: with it the token trigger still compacts when "
        "the context really fills, and no request reaches the model's window.",
        _pressure,
        kind="ctxlab",
        note="our own check, judged by ≥ 1 guarded compaction, every one fired by tokens, and "
        "the largest request below the window",
        differs_note="the guarded session never compacted, compacted on messages alone, or "
        "overflowed",
    ),
    ClaimSpec(
        "X-THRASH-SKIPS",
        "Each compaction the guard refuses is logged with its reason (one log line and one "
        "record per skip).",
        _skips,
        kind="ctxlab",
        note="our own check, judged by skips > 0 and one guard log line per skip",
        differs_note="the guard skipped nothing or its log lines do not match its records",
    ),
    ClaimSpec(
        "X-THRASH-PAIRS",
        "No request in either run separates a tool call from its result.",
        _pairs,
        kind="ctxlab",
        note="our own check, judged by validate_pairing on every agent request of both runs",
        differs_note="a tool call was separated from its result",
    ),
    ClaimSpec(
        "X-THRASH-REFILL",
        "When the context refills right after compacting, the guard stops the session with "
        "CompactionThrashError at its bound of refills in a row (the verdict names it).",
        _refill,
        kind="ctxlab",
        differs_note="the refill bound did not stop the session as expected",
    ),
    ClaimSpec(
        "X-THRASH-TOKENS",
        "The guard trades calls for size: without the thrash the context grows until the token "
        "trigger, so the guarded session sends more prompt tokens (agent and summary requests, "
        "before any prefix cache) although it makes far fewer calls.",
        _tokens,
        kind="ctxlab",
        note="our own check, judged by prompt tokens per 100 turns (AgentScope's estimator) with "
        "the guard > without; the guard is about calls and churn, not request size",
        differs_note="the guarded session did not send more prompt tokens",
    ),
)
