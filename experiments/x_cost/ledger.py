"""The compaction cost ledger: what each compaction's summary call cost, and what it saved.

A compaction is an extra model call (the summary), paid once; in exchange every later request
carries a shorter context. For each compaction the ledger keeps

* the **cost**: the summary call's prompt, cached and completion tokens, as the provider's
  ``usage`` reported them (cached ``None`` when the provider did not say; a call without usage,
  or one that failed, puts the compaction in the ``usage missing`` state and its cost is
  ``None``, never an estimate);
* the **savings**: the tokens it removed from each later request. A compaction's event says how
  many tokens it removed, as its engine's meter priced them (``tokens before - tokens after``);
  on a later request that figure is converted to the provider's tokens by that request's own
  ratio (its ``usage.prompt_tokens`` over the meter's reading of it), so savings and cost are in
  the same unit. A later request without usage (or without a meter reading) has an unknown
  saving and puts the compaction in the ``usage missing`` state. A removal stays out of every
  later request, also after the next compaction (which summarises the already smaller context),
  so each compaction is credited on all requests after it; ``window`` names those before the
  next compaction. A summary larger than what it replaced removes a negative number of tokens,
  and the ledger says so.
* the **net**: savings minus cost (prompt + completion tokens of the summary call).

Build it with :func:`build_ledger` from :class:`LedgerRequest` rows, or from a finished session
with :func:`experiments.x_cost.usage_tap.ledger_from_calls`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from experiments.x_cost.view import CompactionCostRecord, LedgerRecord
from harness.model import Usage
from lab import to_data

__all__ = [
    "MEASURED",
    "NO_CALL",
    "USAGE_MISSING",
    "CompactionCost",
    "CostLedger",
    "LedgerCompaction",
    "LedgerRequest",
    "RequestSaving",
    "RequestTokens",
    "SummaryCost",
    "build_ledger",
]

MEASURED = "measured"
"""Every figure of the entry comes from provider usage."""
USAGE_MISSING = "usage missing"
"""A summary call or a later request had no usage: the affected figure is None."""
NO_CALL = "no summary call"
"""The compaction made no summary call (a prune-only step, or nothing to summarise)."""


@dataclass(frozen=True)
class SummaryCost:
    """What one compaction's summary call(s) cost, from provider usage."""

    calls: int
    prompt_tokens: int | None
    """Prompt tokens of the call(s), cached ones included; None when usage is missing."""
    cached_tokens: int | None
    """Of which served from the provider's prefix cache; None when the provider did not say."""
    completion_tokens: int | None
    state: str
    """:data:`MEASURED`, :data:`USAGE_MISSING` or :data:`NO_CALL`."""

    @classmethod
    def of(cls, usages: Sequence[Usage | None]) -> SummaryCost:
        if not usages:
            return cls(0, 0, 0, 0, NO_CALL)
        known = [u for u in usages if u is not None]
        if len(known) < len(usages):
            return cls(len(usages), None, None, None, USAGE_MISSING)
        cached = [u.cached_tokens for u in known]
        return cls(
            calls=len(usages),
            prompt_tokens=sum(u.prompt_tokens for u in known),
            cached_tokens=None if None in cached else sum(c or 0 for c in cached),
            completion_tokens=sum(u.completion_tokens for u in known),
            state=MEASURED,
        )

    @property
    def total(self) -> int | None:
        """Prompt + completion tokens; None when usage is missing."""
        if self.prompt_tokens is None or self.completion_tokens is None:
            return None
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class LedgerCompaction:
    """One compaction as the ledger takes it in."""

    tokens_before: int | None
    """The context's tokens before it, as ``meter`` priced them (None: not priced, as for a
    prune-only step, which then counts as removing nothing)."""
    tokens_after: int | None
    """And after it."""
    summary_usage: tuple[Usage | None, ...]
    """The usage of each summary call it made (None for a call without usage or that failed)."""
    meter: str = ""


@dataclass(frozen=True)
class LedgerRequest:
    """One model request of the session (not a summary call), in order."""

    usage: Usage | None
    metered_tokens: int | None
    """The compaction meter's reading of this request (the same meter as the events')."""
    compactions: tuple[LedgerCompaction, ...] = ()
    """The compactions that ran just before it."""


@dataclass(frozen=True)
class RequestSaving:
    """The tokens one compaction removed from one later request."""

    request: int
    removed_tokens: int | None
    """In the provider's tokens; None when the request's usage or meter reading is missing."""


@dataclass(frozen=True)
class CompactionCost:
    """One row of the ledger."""

    index: int
    request: int
    """The request it ran before (0-based)."""
    summary: SummaryCost
    removed_metered: int
    """Tokens it removed from the context, as ``meter`` priced them (negative: it grew)."""
    meter: str
    later: tuple[RequestSaving, ...]
    """Every request from ``request`` on."""
    window: int
    """How many of ``later`` come before the next compaction."""

    @property
    def savings(self) -> int | None:
        figures = [s.removed_tokens for s in self.later]
        return None if None in figures else sum(f or 0 for f in figures)

    @property
    def net(self) -> int | None:
        savings, cost = self.savings, self.summary.total
        return None if savings is None or cost is None else savings - cost

    @property
    def state(self) -> str:
        if self.summary.state == USAGE_MISSING or self.savings is None:
            return USAGE_MISSING
        return self.summary.state

    def to_dict(self) -> dict[str, Any]:
        """This compaction's row as JSON data (:class:`~experiments.x_cost.view.
        CompactionCostRecord`'s fields)."""
        return to_data(CompactionCostRecord.of(self))


@dataclass(frozen=True)
class RequestTokens:
    """One request's prompt tokens, as sent and as they would have been without compaction."""

    request: int
    prompt_tokens: int | None
    without_compaction: int | None


def _sum(values: Sequence[int | None]) -> int | None:
    return None if None in values else sum(v or 0 for v in values)


@dataclass(frozen=True)
class CostLedger:
    """Every compaction of a session with its cost, savings and net, and the totals."""

    compactions: tuple[CompactionCost, ...]
    requests: tuple[RequestTokens, ...]

    @property
    def cost(self) -> int | None:
        """All summary calls' tokens; None when any usage is missing."""
        return _sum([c.summary.total for c in self.compactions])

    @property
    def cached(self) -> int | None:
        return _sum([c.summary.cached_tokens for c in self.compactions if c.summary.calls])

    @property
    def savings(self) -> int | None:
        return _sum([c.savings for c in self.compactions])

    @property
    def net(self) -> int | None:
        return None if self.cost is None or self.savings is None else self.savings - self.cost

    @property
    def missing(self) -> int:
        """How many compactions are in the ``usage missing`` state."""
        return sum(c.state == USAGE_MISSING for c in self.compactions)

    def cumulative(self) -> tuple[list[int | None], list[int | None]]:
        """Running totals per request: prompt tokens sent plus summary calls (with compaction),
        and the prompt tokens the requests would have had without it; None once unknown. A
        compaction after the last request adds one more point (its cost, nothing saved)."""
        costs: dict[int, list[int | None]] = {}
        for c in self.compactions:
            costs.setdefault(c.request, []).append(c.summary.total)
        points = [(r.prompt_tokens, r.without_compaction) for r in self.requests]
        if len(self.requests) in costs:
            points.append((0, 0))
        with_: list[int | None] = []
        without: list[int | None] = []
        run_with: int | None = 0
        run_without: int | None = 0
        for i, (sent, unsent) in enumerate(points):
            run_with = _sum([run_with, sent, *costs.get(i, [])])
            run_without = _sum([run_without, unsent])
            with_.append(run_with)
            without.append(run_without)
        return with_, without

    def to_dict(self) -> dict[str, Any]:
        """Every row and the totals as JSON data (:class:`~experiments.x_cost.view.LedgerRecord`'s
        fields)."""
        return to_data(LedgerRecord.of(self))


def _ratio(request: LedgerRequest) -> float | None:
    """The provider's tokens per meter token on this request."""
    if request.usage is None or not request.metered_tokens:
        return None
    return request.usage.prompt_tokens / request.metered_tokens


def _removed(compaction: LedgerCompaction) -> int:
    before, after = compaction.tokens_before, compaction.tokens_after
    return 0 if before is None or after is None else before - after


def build_ledger(
    requests: Sequence[LedgerRequest], trailing: Sequence[LedgerCompaction] = ()
) -> CostLedger:
    """The ledger of a session whose requests, in order, are ``requests``; ``trailing`` are
    compactions after the last request (no later request: they saved nothing yet)."""
    starts = [(i, c) for i, request in enumerate(requests) for c in request.compactions]
    starts += [(len(requests), c) for c in trailing]
    ratios = [_ratio(r) for r in requests]
    rows = []
    for k, (first, compaction) in enumerate(starts):
        removed = _removed(compaction)
        following = [s for s, _ in starts[k + 1 :]]
        window_end = following[0] if following else len(requests)
        later = tuple(
            RequestSaving(i, None if ratios[i] is None else round(removed * (ratios[i] or 0)))
            for i in range(first, len(requests))
        )
        rows.append(
            CompactionCost(
                index=k,
                request=first,
                summary=SummaryCost.of(compaction.summary_usage),
                removed_metered=removed,
                meter=compaction.meter,
                later=later,
                window=window_end - first,
            )
        )
    return CostLedger(tuple(rows), _request_tokens(requests, rows))


def _request_tokens(
    requests: Sequence[LedgerRequest], rows: Sequence[CompactionCost]
) -> tuple[RequestTokens, ...]:
    out = []
    for i, request in enumerate(requests):
        sent = request.usage.prompt_tokens if request.usage else None
        removed = _sum([s.removed_tokens for row in rows for s in row.later if s.request == i])
        without = None if sent is None or removed is None else sent + removed
        out.append(RequestTokens(i, sent, without))
    return tuple(out)
