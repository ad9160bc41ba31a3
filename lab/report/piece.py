"""An experiment's piece of the report: what ``experiments/<name>/page.py`` exports as ``PAGE``.

The report reads each experiment's ``<ID>.json`` back into the typed view it was written from
(:meth:`Page.read`), renders the Measurements section of ``<ID>.md`` from it, opens the
experiment's part of ``index.html`` with :attr:`Page.about`, and draws :attr:`Page.plot`; a
claim's evidence page names the experiment's judges (:attr:`Page.judges`) and shows what the
experiment says its claims were judged on (:attr:`Page.evidence`).
:mod:`lab.report.experiments` collects the pages in the manifest's order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from lab.views import from_data

if TYPE_CHECKING:
    import pandas as pd

    from lab.report.evidence.calls import Call
    from lab.report.evidence.facts import ConditionRuns
    from lab.report.plots.canvas import Plot

__all__ = ["Evidence", "Page"]

V = TypeVar("V")


@dataclass(frozen=True)
class Evidence:
    """What an experiment's claims were judged on, for their evidence pages
    (:mod:`lab.report.evidence`); the default shows every recorded call of the experiment's
    own cassette folder for the claim's model, and says it is not exact."""

    cassettes: tuple[str, ...] = ()
    """``<folder>/<name>`` of the cassettes it replays, in its set's folder; empty: every
    cassette of its own folder."""
    label: Callable[[Sequence[Call]], list[Call]] | None = None
    """Labels its calls so that :attr:`picks` can name them (E3: ``round N``)."""
    picks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """By claim id, the labels of the calls the claim reads (the page says it is exact); a
    claim not listed shows every call."""
    facts: Callable[[Mapping[str, Any], str, str], list[ConditionRuns]] | None = None
    """Instead of calls, the outcomes the claims were judged on, read from the experiment's
    JSON for ``(data, claim id, set)`` (X-BENCH: facts kept per conversation and condition)."""


@dataclass(frozen=True)
class Page(Generic[V]):
    """How the reports read, render and draw one experiment."""

    view: type[V]
    """The typed view the experiment writes as ``<ID>.json``."""
    section: Callable[[V, pd.DataFrame], str] | None
    """The Measurements section of its page, given the view and the experiment's own claims;
    None: the page shows the JSON as recorded (generic)."""
    about: str = ""
    """What the experiment tests, in a sentence or two: its section of ``index.html`` opens
    with it (without one, the section shows the experiment's title only)."""
    plot: Callable[[Any], Plot] | None = None
    """Its plot, if it has one."""
    plot_every_set: bool = False
    """Whether the plot draws every recorded set (given ``[(model, view), ...]``) or the one
    scripted view."""
    every_model: bool = False
    """Whether ``<ID>.md`` shows each recorded model's measurements (E4: the 0.5B model left
    no DSH compaction) or the first model's (the rest is in ``claims.md``)."""
    judges: Mapping[str, str] = field(default_factory=dict)
    """The experiment's own judges: the stable name a claim's note cites (``judge `name```)
    and, for the reader, the code that holds the rule (the shared judges are
    :data:`lab.claims.judge_names.JUDGES`)."""
    evidence: Evidence = field(default_factory=Evidence)
    """What its claims' evidence pages show."""

    def read(self, data: Mapping[str, Any]) -> V:
        """The view of ``data``; raises :class:`~lab.views.ShapeError` when the
        JSON is not shaped as the view."""
        return from_data(self.view, data)
