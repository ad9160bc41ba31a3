"""The DeepSeek-Harness rows of E5 as data: what the seed states about the DSH engine, judged
on :class:`~experiments.e5.view.dsh_mechanics.DshMechanics` (measured by
:mod:`experiments.e5.measures.dsh_mechanics`)."""

from __future__ import annotations

from experiments.e5.common import SOURCE
from experiments.e5.view.dsh_mechanics import Attempt, DshMechanics
from lab import DEVIATION, DSH_SEED, Claim, ClaimSpec, Verdict, cite, evaluate, yes

__all__ = ["DSH_SPECS", "dsh_mechanics_claims"]


SIX = ("busy", "changed", "summary", "commit", "persistence", "cancelled")


def dsh_mechanics_claims(data: DshMechanics) -> tuple[Claim, ...]:
    """The DeepSeek-Harness rows: :data:`DSH_SPECS` judged on ``data``."""
    return evaluate("E5", DSH_SPECS, data, SOURCE)


def _pressure_row(data: DshMechanics) -> Verdict:
    p = data.pressure
    return Verdict(
        f"window {p.window}: threshold {p.threshold}, retain {p.retain}; below: "
        f"{p.below_events} compactions, {p.below_calls} model calls; above: "
        f"{p.above_events} compaction",
        (p.threshold, p.retain) == (8_000, 1_600)
        and p.below_events == p.below_calls == 0
        and p.above_events >= 1,
    )


def _overflow_row(data: DshMechanics) -> Verdict:
    o = data.overflow
    return Verdict(
        f"compacted {o.messages_before} → {o.messages_after} messages; nothing "
        f"compactable: {o.uncompactable_events} events (no retry); max retries "
        f"{o.max_overflow_retries}",
        o.events == 1
        and o.messages_after == 2
        and o.uncompactable_events == 0
        and o.max_overflow_retries == 1,
    )


def _backoff_row(data: DshMechanics) -> Verdict:
    b = data.backoff
    return Verdict(
        f"naive cut {b.naive_cut} moved to {b.cut}; only a pair left: "
        f"{'null' if b.impossible else 'compacted'}",
        b.naive_cut == 2 and b.cut == 1 and b.impossible,
    )


def _rejected(attempt: Attempt, *error_says: str) -> Verdict:
    """A summary the engine must refuse: an error containing each of ``error_says`` (case
    aside), the surface kept and the bracket closed with the error."""
    said = attempt.error.casefold()
    return Verdict(
        f"error: {attempt.error[:60] or 'none'}; surface unchanged: {attempt.surface_unchanged}",
        all(phrase.casefold() in said for phrase in error_says)
        and bool(attempt.error)
        and attempt.surface_unchanged
        and attempt.closed_with_error,
    )


def _smaller_row(data: DshMechanics) -> Verdict:
    return _rejected(data.smaller, "not smaller")


TRUNCATED_SAYS = ("max_tokens", "incomplete checkpoint")
"""What the seed names for a cut summary: "把 max-tokens 映射成错误码 MAX_TOKENS 的 incomplete
checkpoint" (any other error text, "no text" say, is not that refusal)."""


def _truncated_row(data: DshMechanics) -> Verdict:
    return _rejected(data.truncated, *TRUNCATED_SAYS)


def _lock_row(data: DshMechanics) -> Verdict:
    lock = data.lock
    return Verdict(
        f"last event during the summary call: {lock.last_event_during_summary}; busy: "
        + ", ".join(lock.busy),
        lock.last_event_during_summary == "compaction/start"
        and lock.busy == ("manual", "pressure", "overflow"),
    )


def _stale_row(data: DshMechanics) -> Verdict:
    stale = data.stale
    return Verdict(
        f"detected: {yes(stale.detected)}; busy: "
        + ("yes" if stale.busy else "no, the next compaction proceeds"),
        stale.detected and stale.busy,
    )


def _manual_row(data: DshMechanics) -> Verdict:
    codes = data.manual_errors
    seen = sorted(set(codes.values()) & set(SIX))
    return Verdict(
        f"{len(seen)} of 6 raised: "
        + "; ".join(f"{case} → {code}" for case, code in codes.items()),
        seen == sorted(SIX),
    )


DSH_SPECS: tuple[ClaimSpec[DshMechanics], ...] = (
    ClaimSpec(
        "DSH-PRESSURE",
        "Pressure: compact at floor(window × 0.8), keep a floor(window × 0.16) tail; below "
        "the threshold nothing happens.",
        _pressure_row,
        "threshold = floor(window × 0.8), retain = floor(window × 0.16), no-op below",
        cite(DSH_SEED, "0.8 乘上模型窗口得到触发线，0.16 乘上窗口得到保留尾部"),
        note="run on a scripted log just below and just above the threshold",
        differs_note="the threshold or tail is not the seed's, or the engine acted below "
        "the threshold; see E5.json dsh.pressure",
    ),
    ClaimSpec(
        "DSH-OVERFLOW",
        "On a context-window error: prune, then compact with retain 0; retry only when the "
        "surface was replaced; at most 1 retry by default.",
        _overflow_row,
        "retain 0",
        cite(DSH_SEED, "用 0 当保留预算选区"),
        note="retain 0 keeps only the newest node besides the checkpoint; also checked, as "
        "§2 reads them further on: a retry only when the surface was replaced, and "
        "maxOverflowRetries 1",
        differs_note="the recovery kept more than the last node, retried without a "
        "change, or the retry budget is not 1; see E5.json dsh.overflow",
    ),
    ClaimSpec(
        "DSH-RANGE-BACKOFF",
        "A cut between a tool call and its result moves toward the head; when it reaches "
        "0 there is no compaction (null).",
        _backoff_row,
        "moves toward older nodes; null at 0",
        cite(DSH_SEED, "一路退到 0 就返回 null，宁可不压缩"),
        differs_note="the cut did not back off, or an impossible range was compacted",
    ),
    ClaimSpec(
        "DSH-SMALLER",
        "A framed summary not strictly smaller than the shadowed content is a hard failure.",
        _smaller_row,
        "not smaller → error",
        cite(DSH_SEED, "大于等于就报错，压缩不减反增在这套代码里是硬故障"),
        differs_note="an oversized summary was accepted or left the bracket open",
    ),
    ClaimSpec(
        "DSH-TRUNCATED",
        "A summary cut off at max tokens is a failure, not a half checkpoint.",
        _truncated_row,
        "max-tokens → failure",
        cite(DSH_SEED, "截断即失败"),
        note="the error must name max_tokens and an incomplete checkpoint, as the seed does",
        differs_note="a truncated summary was committed, or refused with another error than "
        "the seed's (MAX_TOKENS, incomplete checkpoint)",
    ),
    ClaimSpec(
        "DSH-LOCK",
        "compaction/start is appended before the summary call and is the lock: an unclosed "
        "start makes every entry point busy.",
        _lock_row,
        "start before any await; unclosed start → busy",
        cite(DSH_SEED, "这条 start 就是锁"),
        differs_note="the start was not on the log during the call, or a path ignored it",
    ),
    ClaimSpec(
        "DSH-LOCK-STALE",
        "After a crash mid-compaction the unclosed start is found on the next start-up and "
        "the engine reports busy.",
        _stale_row,
        "crash-left start detected → busy",
        cite(DSH_SEED, "下次进来扫一眼就知道上回有个没做完的压缩"),
        differs_note="ctxlab follows DeepSeek-Harness's code, not the seed's wording: a start "
        "left before the newest session/end-seed belongs to a dead process, so "
        "EventLog.stale_compaction() reports it but it does not block (harness.store.eventlog); "
        "only a start of the live process is busy (DSH-LOCK)",
        reason_class=DEVIATION,
    ),
    ClaimSpec(
        "DSH-MANUAL-ERRORS",
        "Manual compaction failures are classified busy / changed / summary / commit / "
        "persistence / cancelled.",
        _manual_row,
        "6 classes: busy, changed, summary, commit, persistence, cancelled",
        cite(DSH_SEED, "busy / changed / summary / commit / persistence / cancelled 六种"),
        note="each provoked through harness.compaction.manual.ManualCompaction with a scripted "
        "model; "
        "'changed' is signalled by the summariser raising SurfaceChangedError (an append-"
        "only log cannot change inside the span from outside the engine)",
        differs_note="some class was never raised; see E5.json dsh.manual_errors",
    ),
)
