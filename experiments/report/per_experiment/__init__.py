"""What the reports know of each experiment, one module per experiment, and the registry.

Each module (``e1`` … ``e5``, ``x_thrash``, ``x_cost``, ``x_bench``) holds ``<name>_view``,
which reads that experiment's ``<ID>.json`` back into the typed view the experiment wrote it from
(:mod:`experiments.views`; it raises :class:`~experiments.views.ShapeError` when the JSON is not
shaped as the view), and ``<name>_section``, the Measurements section of its page (X-GATE has
none: its page shows the JSON as recorded). :data:`REPORTS` maps an experiment id to
both; :func:`read_view` and :func:`measurements_section` use it, so that an experiment without
an entry, or with a JSON of another shape, is rendered generically instead of crashing the build.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import pandas as pd

from experiments.report.per_experiment.e1 import E1_ABOUT, E1View, e1_section, e1_view
from experiments.report.per_experiment.e2 import E2_ABOUT, E2View, e2_section, e2_view
from experiments.report.per_experiment.e3 import E3_ABOUT, E3View, e3_section, e3_view
from experiments.report.per_experiment.e4 import E4_ABOUT, E4View, e4_section, e4_view
from experiments.report.per_experiment.e5 import E5_ABOUT, E5View, e5_section, e5_view
from experiments.report.per_experiment.x_bench import (
    X_BENCH_ABOUT,
    XBenchView,
    x_bench_section,
    x_bench_view,
)
from experiments.report.per_experiment.x_cost import (
    X_COST_ABOUT,
    XCostView,
    x_cost_section,
    x_cost_view,
)
from experiments.report.per_experiment.x_thrash import (
    X_THRASH_ABOUT,
    XThrashView,
    x_thrash_section,
    x_thrash_view,
)
from experiments.report.tables import ExperimentDoc
from experiments.views import ShapeError

__all__ = [
    "ABOUT",
    "REPORTS",
    "E1View",
    "E2View",
    "E3View",
    "E4View",
    "E5View",
    "ExperimentReport",
    "View",
    "XBenchView",
    "XCostView",
    "XThrashView",
    "about",
    "measurements_section",
    "read_view",
]

V = TypeVar("V")


@dataclass(frozen=True)
class ExperimentReport(Generic[V]):
    """How the reports read and render one experiment."""

    view_type: type[V]
    read: Callable[[Mapping[str, Any]], V]
    """Reads the experiment's JSON; raises ShapeError when it is not shaped as expected."""
    section: Callable[[V, pd.DataFrame], str]
    """The Measurements section of its page, given the view and the experiment's own claims."""
    about: str = ""
    """What the experiment tests, in a sentence or two: its section of ``index.html`` opens
    with it (without one, the section shows the experiment's title only)."""


View = E1View | E2View | E3View | E4View | E5View | XThrashView | XCostView | XBenchView
REPORTS: dict[str, ExperimentReport[Any]] = {
    "E1": ExperimentReport(E1View, e1_view, e1_section, E1_ABOUT),
    "E2": ExperimentReport(E2View, e2_view, e2_section, E2_ABOUT),
    "E3": ExperimentReport(E3View, e3_view, e3_section, E3_ABOUT),
    "E4": ExperimentReport(E4View, e4_view, e4_section, E4_ABOUT),
    "E5": ExperimentReport(E5View, e5_view, e5_section, E5_ABOUT),
    "X-THRASH": ExperimentReport(XThrashView, x_thrash_view, x_thrash_section, X_THRASH_ABOUT),
    "X-COST": ExperimentReport(XCostView, x_cost_view, x_cost_section, X_COST_ABOUT),
    "X-BENCH": ExperimentReport(XBenchView, x_bench_view, x_bench_section, X_BENCH_ABOUT),
}
ABOUT: dict[str, str] = {
    "X-GATE": (
        "ctxlab's identifier-survival gate re-runs E3's and E4's summaries with the gate on and "
        "off and checks which planted facts (code word, order id, number, path) reach the "
        "summary verbatim."
    ),
}
"""What an experiment without an entry in :data:`REPORTS` tests (its page is generic)."""


def about(experiment: str) -> str:
    """What ``experiment`` tests, from its report entry or :data:`ABOUT`; empty when unknown."""
    report = REPORTS.get(experiment)
    return report.about if report is not None and report.about else ABOUT.get(experiment, "")


def read_view(doc: ExperimentDoc) -> tuple[View | None, str]:
    """The experiment's typed view, or None and why it must be rendered generically."""
    if doc.data is None:
        return None, doc.error
    report = REPORTS.get(doc.id.split("@", 1)[0])
    if report is None:
        return None, "no dedicated page for this experiment"
    try:
        return report.read(doc.data), ""
    except ShapeError as error:
        return None, f"its JSON is not shaped as expected ({error})"


def measurements_section(view: View | None, claims: pd.DataFrame) -> str | None:
    """The Measurements section for ``view``; None without a view (render it generically)."""
    for report in REPORTS.values():
        if isinstance(view, report.view_type):
            return report.section(view, claims)
    return None
