"""X-COST's view: the compaction cost ledger per recorded experiment and engine.

:mod:`experiments.x_cost` builds an :class:`XCostView` and writes it as ``X-COST.json``; its
claims (:mod:`experiments.x_cost.claims`), its page
(:mod:`experiments.x_cost.page`) and its plot
(:mod:`experiments.x_cost.plot`) read it. A ledger is
:meth:`experiments.x_cost.ledger.CostLedger.to_dict`'s form, read with
:func:`~experiments.lab.views.from_data`.
"""

from __future__ import annotations

from dataclasses import dataclass

from experiments.lab.recorder.provenance import Provenance

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
