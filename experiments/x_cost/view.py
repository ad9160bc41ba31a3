"""X-COST's view: the compaction cost ledger per recorded experiment and engine.

:mod:`experiments.x_cost` builds an :class:`XCostView` and writes it as ``X-COST.json``; its
claims (:mod:`experiments.x_cost.claims`), its page
(:mod:`experiments.x_cost.page`) and its plot
(:mod:`experiments.x_cost.plot`) read it. A ledger is
recorded as a :class:`LedgerRecord`, built from the
:class:`~experiments.x_cost.ledger.CostLedger` by :meth:`LedgerRecord.of`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lab import Provenance

if TYPE_CHECKING:
    from experiments.x_cost.ledger import CompactionCost, CostLedger

__all__ = ["CompactionCostRecord", "LedgerRecord", "LedgerRow", "XCostView"]


@dataclass(frozen=True)
class CompactionCostRecord:
    """One compaction of a ledger (:class:`~experiments.x_cost.ledger.CompactionCost`)."""

    index: int
    request: int
    """The request it ran before (0-based)."""
    state: str
    """``measured``, ``usage missing`` or ``no summary call``."""
    summary_calls: int
    summary_prompt_tokens: int | None
    summary_cached_tokens: int | None
    """None when the provider did not report cached tokens."""
    summary_completion_tokens: int | None
    cost: int | None
    """Prompt + completion tokens of the summary call(s); None when usage is missing."""
    removed_metered: int
    """Tokens it removed from the context, as ``meter`` priced them (negative: it grew)."""
    meter: str
    window: int
    """How many of ``later`` come before the next compaction."""
    later: tuple[tuple[int, int | None], ...]
    """``(request, removed provider tokens)`` for every request from ``request`` on."""
    savings: int | None
    net: int | None

    @classmethod
    def of(cls, cost: CompactionCost) -> CompactionCostRecord:
        """The record of one of the ledger's compactions."""
        summary = cost.summary
        return cls(
            index=cost.index,
            request=cost.request,
            state=cost.state,
            summary_calls=summary.calls,
            summary_prompt_tokens=summary.prompt_tokens,
            summary_cached_tokens=summary.cached_tokens,
            summary_completion_tokens=summary.completion_tokens,
            cost=summary.total,
            removed_metered=cost.removed_metered,
            meter=cost.meter,
            window=cost.window,
            later=tuple((s.request, s.removed_tokens) for s in cost.later),
            savings=cost.savings,
            net=cost.net,
        )


@dataclass(frozen=True)
class LedgerRecord:
    """A ledger (:class:`~experiments.x_cost.ledger.CostLedger`)."""

    compactions: tuple[CompactionCostRecord, ...]
    requests: tuple[tuple[int | None, int | None], ...]
    """``(prompt tokens as sent, as they would have been without compaction)`` per request."""
    cumulative_with: tuple[int | None, ...]
    cumulative_without: tuple[int | None, ...]
    cost: int | None
    cached: int | None
    savings: int | None
    net: int | None
    usage_missing: int

    @classmethod
    def of(cls, ledger: CostLedger) -> LedgerRecord:
        """The record of ``ledger``, built from it directly."""
        with_, without = ledger.cumulative()
        return cls(
            compactions=tuple(CompactionCostRecord.of(c) for c in ledger.compactions),
            requests=tuple((r.prompt_tokens, r.without_compaction) for r in ledger.requests),
            cumulative_with=tuple(with_),
            cumulative_without=tuple(without),
            cost=ledger.cost,
            cached=ledger.cached,
            savings=ledger.savings,
            net=ledger.net,
            usage_missing=ledger.missing,
        )


@dataclass(frozen=True)
class LedgerRow:
    """One recorded experiment and engine: its ledger and the figures the claims judge."""

    experiment: str
    engine: str
    cassette: str
    """``<experiment>/<cassette name>``."""
    source: str
    compactions: int
    cost: int | None
    cached: int | None
    cost_uncached: int | None
    savings: int | None
    net: int | None
    usage_missing: int
    later_requests: int
    """Requests credited with a saving, over all compactions."""
    removed_per_later_request: int | None
    """What the last compaction would remove from a later request the size of the last one
    (only where no request follows the compaction)."""
    break_even_requests: int | None
    """After how many such later requests the removal repays the cost (a projection)."""
    ledger: LedgerRecord

    @property
    def label(self) -> str:
        """``<experiment> <engine>``."""
        return f"{self.experiment} {self.engine}"


@dataclass(frozen=True)
class XCostView:
    """X-COST: one ledger per recorded experiment and engine."""

    experiment: str
    title: str
    ledgers: tuple[LedgerRow, ...]
    provenance: tuple[Provenance, ...]
    """The cassettes E3 and E4 replayed."""
