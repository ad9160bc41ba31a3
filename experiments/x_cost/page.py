"""X-COST's report: the compaction cost ledger per recorded experiment and engine.

``PAGE.read`` reads ``X-COST.json`` back into the :class:`~experiments.x_cost.view.XCostView`
that ``experiments/x_cost/__init__.py`` wrote it from; :func:`x_cost_section` renders it as the
Measurements section of ``X-COST.md``.
"""

from __future__ import annotations

import pandas as pd

from experiments.x_cost.plot import x_cost_plot
from experiments.x_cost.view import LedgerRow, XCostView
from lab import Evidence, Page, markdown_table

__all__ = ["PAGE", "X_COST_ABOUT", "LedgerRow", "XCostView", "x_cost_section"]

X_COST_ABOUT = (
    "ctxlab's own ledger of what compaction costs (the summary call's tokens) against what it "
    "saves (the tokens later requests no longer carry), for E3's and E4's recordings."
)
"""What the experiment tests (its section of ``index.html`` opens with it)."""


def _shown(value: int | None, missing: str = "usage missing") -> str | int:
    return missing if value is None else value


def _totals(view: XCostView) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "experiment": r.experiment,
                "engine": r.engine,
                "cassette": r.cassette,
                "compactions": r.compactions,
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
                "later requests": len(c.later),
                "savings": _shown(c.savings),
                "net": _shown(c.net),
            }
            for r in view.ledgers
            for c in r.ledger.compactions
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


PAGE = Page(
    XCostView,
    x_cost_section,
    X_COST_ABOUT,
    plot=x_cost_plot,
    plot_every_set=True,
    evidence=Evidence(cassettes=("E3/rounds", "E4/compactions")),
)
