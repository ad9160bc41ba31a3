"""Property tests of the compaction cost ledger: whatever the session, the totals are the sum
of the parts, a compaction that shrank the context never saves a negative amount, and a
missing figure makes the total unknown instead of smaller. The hypothesis profile is chosen in
conftest.py."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from experiments.x_cost.ledger import USAGE_MISSING, LedgerCompaction, LedgerRequest, build_ledger
from harness.model import Usage

usages = st.builds(
    Usage,
    prompt_tokens=st.integers(0, 5000),
    completion_tokens=st.integers(0, 500),
    cached_tokens=st.none() | st.integers(0, 5000),
)
maybe_usage = st.none() | usages


@st.composite
def compactions(draw: st.DrawFn) -> LedgerCompaction:
    after = draw(st.integers(0, 4000))
    before = draw(st.integers(0, 5000))
    calls = draw(st.lists(maybe_usage, max_size=2))
    return LedgerCompaction(before, after, tuple(calls), "m")


requests = st.builds(
    LedgerRequest,
    usage=maybe_usage,
    metered_tokens=st.none() | st.integers(0, 5000),
    compactions=st.lists(compactions(), max_size=2).map(tuple),
)
sessions = st.tuples(st.lists(requests, max_size=8), st.lists(compactions(), max_size=2))


@given(sessions)
def test_totals_are_the_sum_of_the_parts(session: tuple[list[LedgerRequest], list]) -> None:
    ledger = build_ledger(*session)
    rows = ledger.compactions
    assert len(rows) == sum(len(r.compactions) for r in session[0]) + len(session[1])
    costs = [r.summary.total for r in rows]
    savings = [r.savings for r in rows]
    assert ledger.cost == (None if None in costs else sum(c or 0 for c in costs))
    assert ledger.savings == (None if None in savings else sum(s or 0 for s in savings))
    if ledger.cost is not None and ledger.savings is not None:
        assert ledger.net == ledger.savings - ledger.cost
        assert ledger.net == sum(r.net or 0 for r in rows)
    else:
        assert ledger.net is None
    assert ledger.missing == sum(r.state == USAGE_MISSING for r in rows)
    # what each request would have carried without compaction is exactly what was credited
    for request in ledger.requests:
        credited = [s.removed_tokens for r in rows for s in r.later if s.request == request.request]
        if request.prompt_tokens is not None and None not in credited:
            assert request.without_compaction == request.prompt_tokens + sum(
                c or 0 for c in credited
            )


@given(sessions)
def test_the_running_totals_end_on_the_totals(session: tuple[list[LedgerRequest], list]) -> None:
    ledger = build_ledger(*session)
    with_, without = ledger.cumulative()
    sent = [r.prompt_tokens for r in ledger.requests]
    if with_ and ledger.cost is not None and None not in sent:
        assert with_[-1] == sum(p or 0 for p in sent) + ledger.cost
    unsent = [r.without_compaction for r in ledger.requests]
    if without and None not in unsent:
        assert without[-1] == sum(u or 0 for u in unsent)
    if ledger.savings is not None and None not in sent and ledger.requests:
        assert without[-1] == sum(p or 0 for p in sent) + ledger.savings


@given(sessions)
def test_a_compaction_that_shrank_the_context_never_saves_a_negative_amount(
    session: tuple[list[LedgerRequest], list],
) -> None:
    for row in build_ledger(*session).compactions:
        if row.removed_metered >= 0:
            assert all(s.removed_tokens is None or s.removed_tokens >= 0 for s in row.later)
            assert row.savings is None or row.savings >= 0
        assert len(row.later) >= row.window


@given(st.lists(requests, min_size=1, max_size=6), compactions())
def test_a_missing_later_usage_makes_savings_unknown_never_smaller(
    session: list[LedgerRequest], compaction: LedgerCompaction
) -> None:
    first = LedgerRequest(None, 10, (compaction,))
    ledger = build_ledger([first, *session])
    assert ledger.compactions[0].savings is None
    assert ledger.compactions[0].state == USAGE_MISSING and ledger.savings is None
