"""X-COST's claims: ctxlab's own checks of the compaction cost ledger (no seed states a value).

Judges, per recorded experiment and engine:

* ``-NET``: compaction **pays off**, i.e. the ledger's net (tokens removed from the later
  requests that were sent, minus the summary calls' prompt + completion tokens) is > 0 by the
  end of the recording. Unknown (usage missing) does not pay off.
* ``-SHRINK``: every compaction removed tokens (its summary is smaller than what it replaced).
* ``-BREAKEVEN`` (only where no request follows the compaction, E4): a projection; the removal,
  on later requests of the last recorded request's size, repays the summary call within
  :data:`~experiments.x_cost.BREAK_EVEN_WITHIN` requests.
* ``X-COST-USAGE``: no ledger row is in the ``usage missing`` state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from experiments.x_cost.view import LedgerRow
from lab.claims import Claim, Status

__all__ = ["x_cost_claims"]

EXPERIMENT = "X-COST"
OURS = "ctxlab's own check (no seed states a value)"


def _judged(
    claim_id: str, claim: str, value: str, holds: bool, expected: str, detail: str, source: str
) -> Claim:
    note = f"{OURS}; expected {expected}; {detail}"
    status: Status = "match" if holds else "differs"
    return Claim(EXPERIMENT, claim_id, claim, "", value, status, source, note, "ctxlab")


def _figures(row: LedgerRow) -> str:
    return f"cost {row.cost}, savings {row.savings}, net {row.net}"


def _ids(rows: Sequence[LedgerRow]) -> list[str]:
    """``X-COST-<experiment>-<ENGINE>``, with the cassette's name when one experiment and
    engine were recorded more than once (several models)."""
    keys = [(r.experiment, r.engine) for r in rows]
    seen = Counter(keys)
    return [
        f"X-COST-{e}-{g.upper()}"
        + (f"-{r.cassette.split('/')[-1].upper()}" if seen[(e, g)] > 1 else "")
        for (e, g), r in zip(keys, rows, strict=True)
    ]


def _net(base: str, row: LedgerRow) -> Claim:
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
    return _judged(
        f"{base}-NET",
        f"{row.experiment} ({row.engine}): compaction pays off by the end of the "
        "recording (tokens removed from later requests exceed the summary calls' tokens).",
        f"{_figures(row)}; {'pays off' if holds else 'does not pay off'}",
        holds,
        "net > 0",
        why,
        row.source,
    )


def _shrink(base: str, row: LedgerRow) -> Claim:
    removed = [c.removed_metered for c in row.ledger.compactions]
    shrank = sum(r > 0 for r in removed)
    meters = sorted({c.meter for c in row.ledger.compactions})
    return _judged(
        f"{base}-SHRINK",
        f"{row.experiment} ({row.engine}): every compaction removes tokens from the "
        "context (its summary is smaller than the span it replaces).",
        f"{shrank} of {len(removed)} (removed: {', '.join(map(str, removed))})",
        shrank == len(removed),
        "every compaction removes tokens",
        f"tokens as the engine's meter ({', '.join(meters)}) priced the context before and "
        "after; a negative figure is a summary larger than what it replaced",
        row.source,
    )


def _break_even(base: str, row: LedgerRow) -> Claim:
    from experiments.x_cost import BREAK_EVEN_WITHIN

    n = row.break_even_requests
    holds = n is not None and n <= BREAK_EVEN_WITHIN
    return _judged(
        f"{base}-BREAKEVEN",
        f"{row.experiment} ({row.engine}): projected, the compaction repays its summary "
        f"call within {BREAK_EVEN_WITHIN} later requests of the recorded size.",
        f"after {n} later request(s)" if n is not None else "never",
        holds,
        f"at most {BREAK_EVEN_WITHIN}",
        f"a projection: no request follows the compaction in the recording; each later "
        f"request would carry {row.removed_per_later_request} fewer prompt tokens (the "
        f"removal at the last recorded request's usage/meter ratio) against a cost of "
        f"{row.cost}",
        row.source,
    )


def _usage(rows: Sequence[LedgerRow]) -> Claim:
    missing = sum(r.usage_missing for r in rows)
    total = sum(r.compactions for r in rows)
    return _judged(
        "X-COST-USAGE",
        "Every compaction of the recorded E3 and E4 runs has provider usage for its summary "
        "call and its later requests (no ledger row is 'usage missing').",
        f"{missing} of {total} missing",
        missing == 0,
        "0 missing",
        "a missing figure is shown as missing, never estimated",
        ", ".join(sorted({r.source for r in rows})),
    )


def x_cost_claims(rows: Sequence[LedgerRow]) -> tuple[Claim, ...]:
    """Judge each ledger row, then the usage of them all."""
    claims: list[Claim] = []
    for base, row in zip(_ids(rows), rows, strict=True):
        claims += [_net(base, row), _shrink(base, row)]
        if row.later_requests == 0:
            claims.append(_break_even(base, row))
    claims.append(_usage(rows))
    return tuple(claims)
