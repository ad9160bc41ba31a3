"""X-COST's claims: ctxlab's own checks of the compaction cost ledger (no seed states a value).

Judges, per recorded experiment and engine:

* ``-NET``: compaction **pays off**, i.e. the ledger's net (tokens removed from the later
  requests that were sent, minus the summary calls' prompt + completion tokens) is > 0 by the
  end of the recording. Unknown (usage missing) does not pay off.
* ``-SHRINK``: every compaction removed tokens (its summary is smaller than what it replaced).
* ``-BREAKEVEN`` (only where no request follows the compaction, E4): a projection; the removal,
  on later requests of the last recorded request's size, repays the summary call within
  :data:`BREAK_EVEN_WITHIN` requests.
* ``X-COST-USAGE``: no ledger row is in the ``usage missing`` state.

One spec per ledger E3 and E4 record (:data:`LEDGERS`), in a table (:data:`SPECS`) judged by
:func:`lab.claims.specs.evaluate`; a spec whose ledger a set did not record has no row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from experiments import e4
from experiments.x_cost.view import LedgerRow
from lab import CAP, ENDS, MODEL, Claim, ClaimSpec, ExperimentError, Verdict, evaluate

__all__ = ["BREAK_EVEN_WITHIN", "LEDGERS", "SPECS", "x_cost_claims"]

EXPERIMENT = "X-COST"
BREAK_EVEN_WITHIN = 3
"""Our expectation for E4: one compaction repays its summary call within this many later
requests of the recorded size."""
LEDGERS = (("E3", "agentscope"), ("E4", "agentscope"), ("E4", "dsh"))
"""The ledgers E3 and E4 record, one per experiment and engine, in the order X-COST measures
them; each has its claims ``X-COST-<experiment>-<ENGINE>-…``."""
Rows = Sequence[LedgerRow]
Measure = Callable[[Rows], Verdict | None]


def _figures(row: LedgerRow) -> str:
    return f"cost {row.cost}, savings {row.savings}, net {row.net}"


def _of(experiment: str, engine: str, judge: Callable[[LedgerRow], Verdict | None]) -> Measure:
    """``judge`` on the ledger of ``experiment`` and ``engine``; None when it was not recorded."""

    def measure(rows: Rows) -> Verdict | None:
        found = [r for r in rows if (r.experiment, r.engine) == (experiment, engine)]
        if len(found) > 1:  # a set records one cassette per experiment: one ledger each
            cassettes = ", ".join(r.cassette for r in found)
            raise ExperimentError(f"X-COST: several ledgers for {experiment} {engine}: {cassettes}")
        return judge(found[0]) if found else None

    return measure


def _net(row: LedgerRow) -> Verdict:
    net = row.net
    holds = net is not None and net > 0
    later = row.later_requests
    cached = "cache not reported" if row.cached is None else f"{row.cached} cached"
    why = (
        "usage is missing, so the net is unknown and is not counted as paying off"
        if net is None
        else f"{row.compactions} compaction(s), {later} later request(s) credited; the "
        f"summary calls cost {row.cost} tokens ({cached}) and the later requests' prompts "
        f"were {row.savings} tokens smaller in all (negative: larger)"
    )
    if net is not None and later == 0:
        why += "; no request follows the compaction in the recording, so nothing was saved yet"
    value = f"{_figures(row)}; {'pays off' if holds else 'does not pay off'}"
    return Verdict(value, holds, note=why, differs_note=why)


def _shrink(row: LedgerRow) -> Verdict:
    removed = [c.removed_metered for c in row.ledger.compactions]
    shrank = sum(r > 0 for r in removed)
    meters = sorted({c.meter for c in row.ledger.compactions})
    why = (
        f"tokens as the engine's meter ({', '.join(meters)}) priced the context before and "
        "after; a negative figure is a summary larger than what it replaced"
    )
    value = f"{shrank} of {len(removed)} (removed: {', '.join(map(str, removed))})"
    return Verdict(value, shrank == len(removed), note=why, differs_note=why)


def _break_even(row: LedgerRow) -> Verdict | None:
    if row.later_requests:  # a recorded request follows the compaction: nothing to project
        return None
    n = row.break_even_requests
    why = (
        f"a projection: no request follows the compaction in the recording; each later "
        f"request would carry {row.removed_per_later_request} fewer prompt tokens (the "
        f"removal at the last recorded request's usage/meter ratio) against a cost of "
        f"{row.cost}"
    )
    value = f"after {n} later request(s)" if n is not None else "never"
    return Verdict(value, n is not None and n <= BREAK_EVEN_WITHIN, note=why, differs_note=why)


def _usage(rows: Rows) -> Verdict:
    missing = sum(r.usage_missing for r in rows)
    total = sum(r.compactions for r in rows)
    return Verdict(f"{missing} of {total} missing", missing == 0)


def _ledger_specs(experiment: str, engine: str) -> tuple[ClaimSpec[Rows], ...]:
    base, what = f"X-COST-{experiment}-{engine.upper()}", f"{experiment} ({engine})"
    # E3's summaries grew the context (the model); E4's recording ends at the compaction, and
    # the capped model's DSH summary was refused (DSH did not compact)
    capped = {e4.CAPPED_MODEL: CAP} if engine == "dsh" else {}
    return (
        ClaimSpec(
            f"{base}-NET",
            f"{what}: compaction pays off by the end of the recording (tokens removed from "
            "later requests exceed the summary calls' tokens).",
            _of(experiment, engine, _net),
            kind="ctxlab",
            expected="net > 0",
            reason_class=ENDS if experiment == "E4" else MODEL,
        ),
        ClaimSpec(
            f"{base}-SHRINK",
            f"{what}: every compaction removes tokens from the context (its summary is smaller "
            "than the span it replaces).",
            _of(experiment, engine, _shrink),
            kind="ctxlab",
            expected="every compaction removes tokens",
            reason_class=MODEL,
            reason_by_model=capped,
        ),
        ClaimSpec(
            f"{base}-BREAKEVEN",
            f"{what}: projected, the compaction repays its summary call within "
            f"{BREAK_EVEN_WITHIN} later requests of the recorded size.",
            _of(experiment, engine, _break_even),
            kind="ctxlab",
            expected=f"at most {BREAK_EVEN_WITHIN}",
            reason_class=MODEL,
            reason_by_model=capped,
        ),
    )


SPECS: tuple[ClaimSpec[Rows], ...] = (
    *(spec for experiment, engine in LEDGERS for spec in _ledger_specs(experiment, engine)),
    ClaimSpec(
        "X-COST-USAGE",
        "Every compaction of the recorded E3 and E4 runs has provider usage for its summary "
        "call and its later requests (no ledger row is 'usage missing').",
        _usage,
        kind="ctxlab",
        expected="0 missing",
        note="a missing figure is shown as missing, never estimated",
        differs_note="a missing figure is shown as missing, never estimated",
    ),
)


def x_cost_claims(rows: Rows) -> tuple[Claim, ...]:
    """Judge the ledgers (one set's, so one source): :data:`SPECS` on ``rows``."""
    return evaluate(EXPERIMENT, SPECS, rows, ", ".join(sorted({r.source for r in rows})))
