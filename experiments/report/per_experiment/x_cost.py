"""X-COST's report: the compaction cost ledger per recorded experiment and engine.

:func:`x_cost_view` reads ``X-COST.json`` (see ``experiments/x_cost.py``) into an
:class:`XCostView`; :func:`x_cost_section` renders it as the Measurements section of
``X-COST.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from experiments.report.markdown import markdown_table
from experiments.report.shape import ShapeError, get, objects

__all__ = ["CompactionRow", "LedgerRow", "XCostView", "x_cost_section", "x_cost_view"]


@dataclass(frozen=True)
class CompactionRow:
    """One compaction of a ledger."""

    index: int
    request: int
    state: str
    summary_prompt_tokens: int | None
    summary_cached_tokens: int | None
    summary_completion_tokens: int | None
    cost: int | None
    removed_metered: int
    meter: str
    later_requests: int
    savings: int | None
    net: int | None


@dataclass(frozen=True)
class LedgerRow:
    """One recorded experiment and engine."""

    experiment: str
    engine: str
    cassette: str
    source: str
    cost: int | None
    cached: int | None
    cost_uncached: int | None
    savings: int | None
    net: int | None
    usage_missing: int
    removed_per_later_request: int | None
    break_even_requests: int | None
    compactions: tuple[CompactionRow, ...]
    cumulative_with: tuple[int | None, ...]
    cumulative_without: tuple[int | None, ...]

    @property
    def label(self) -> str:
        return f"{self.experiment} {self.engine}"


@dataclass(frozen=True)
class XCostView:
    """X-COST: the ledgers."""

    ledgers: tuple[LedgerRow, ...]


def _maybe(data: Any, key: str) -> int | None:
    return get(data, key, int, optional=True)


def _series(data: Any, key: str) -> tuple[int | None, ...]:
    values = get(data, key, list)
    if not all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in values):
        raise ShapeError(f"{key!r} should hold integers or nulls only")
    return tuple(values)


def _compaction(c: Mapping[str, Any]) -> CompactionRow:
    return CompactionRow(
        index=get(c, "index", int),
        request=get(c, "request", int),
        state=get(c, "state", str),
        summary_prompt_tokens=_maybe(c, "summary_prompt_tokens"),
        summary_cached_tokens=_maybe(c, "summary_cached_tokens"),
        summary_completion_tokens=_maybe(c, "summary_completion_tokens"),
        cost=_maybe(c, "cost"),
        removed_metered=get(c, "removed_metered", int),
        meter=get(c, "meter", str),
        later_requests=len(get(c, "later", list)),
        savings=_maybe(c, "savings"),
        net=_maybe(c, "net"),
    )


def _ledger(row: Mapping[str, Any]) -> LedgerRow:
    ledger = get(row, "ledger", Mapping)
    return LedgerRow(
        experiment=get(row, "experiment", str),
        engine=get(row, "engine", str),
        cassette=get(row, "cassette", str),
        source=get(row, "source", str),
        cost=_maybe(row, "cost"),
        cached=_maybe(row, "cached"),
        cost_uncached=_maybe(row, "cost_uncached"),
        savings=_maybe(row, "savings"),
        net=_maybe(row, "net"),
        usage_missing=get(row, "usage_missing", int),
        removed_per_later_request=_maybe(row, "removed_per_later_request"),
        break_even_requests=_maybe(row, "break_even_requests"),
        compactions=tuple(_compaction(c) for c in objects(ledger, "compactions")),
        cumulative_with=_series(ledger, "cumulative_with"),
        cumulative_without=_series(ledger, "cumulative_without"),
    )


def x_cost_view(data: Mapping[str, Any]) -> XCostView:
    """Read X-COST's JSON (see ``experiments/x_cost.py``, ``measure`` and ``_row``)."""
    return XCostView(tuple(_ledger(r) for r in objects(data, "ledgers")))


def _shown(value: int | None, missing: str = "usage missing") -> str | int:
    return missing if value is None else value


def _totals(view: XCostView) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "experiment": r.experiment,
                "engine": r.engine,
                "cassette": r.cassette,
                "compactions": len(r.compactions),
                "cost (summary tokens)": _shown(r.cost),
                "of which cached": _shown(r.cached, "not reported"),
                "savings (later requests)": _shown(r.savings),
                "net": _shown(r.net),
                "usage missing": r.usage_missing,
                "break-even (projected)": (
                    "" if r.break_even_requests is None else f"{r.break_even_requests} requests"
                ),
            }
            for r in view.ledgers
        ]
    )


def _rows(view: XCostView) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "ledger": r.label,
                "#": c.index + 1,
                "before request": c.request + 1,
                "state": c.state,
                "summary prompt / cached / completion": (
                    f"{_shown(c.summary_prompt_tokens)} / "
                    f"{_shown(c.summary_cached_tokens, 'not reported')} / "
                    f"{_shown(c.summary_completion_tokens)}"
                ),
                "removed (meter)": f"{c.removed_metered} ({c.meter})",
                "later requests": c.later_requests,
                "savings": _shown(c.savings),
                "net": _shown(c.net),
            }
            for r in view.ledgers
            for c in r.compactions
        ]
    )


READING = (
    "Cost is the summary call's prompt + completion tokens as the provider reported them; a "
    "call without usage is marked *usage missing*, never estimated. Savings are the tokens a "
    "compaction removed (its engine's meter, before minus after) counted on every later "
    "request, in provider tokens by that request's own prompt_tokens / meter ratio. Net = "
    "savings - cost. E4 sends no request after its compaction, so its savings are 0 and the "
    "break-even column projects how many later requests of the last recorded size would repay "
    "the call."
)


def x_cost_section(view: XCostView, claims: pd.DataFrame) -> str:
    """Totals per experiment and engine, then one row per compaction."""
    if not view.ledgers:
        return "No ledgers.\n"
    return "\n".join(
        [
            READING + "\n",
            "### Cost, savings and net per experiment and engine\n",
            markdown_table(_totals(view)),
            "### Every compaction\n",
            markdown_table(_rows(view)),
        ]
    )
