"""An experiment's piece of the report: what ``experiments/<name>/page.py`` exports as ``PAGE``.

The report reads each experiment's ``<ID>.json`` back into the typed view it was written from
(:meth:`Page.read`), renders the Measurements section of ``<ID>.md`` from it, opens the
experiment's part of ``index.html`` with :attr:`Page.about`, and draws :attr:`Page.plot`.
:mod:`lab.report.experiments` collects the pages in the manifest's order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from lab.views import from_data

if TYPE_CHECKING:
    import pandas as pd

    from lab.report.plots.canvas import Plot

__all__ = ["Page"]

V = TypeVar("V")


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
    rounds: tuple[str, ...] = ()
    """The user messages that open the experiment's numbered rounds, in order: its evidence
    pages label each recorded call by round (:mod:`lab.report.evidence.picks`)."""

    def read(self, data: Mapping[str, Any]) -> V:
        """The view of ``data``; raises :class:`~lab.views.ShapeError` when the
        JSON is not shaped as the view."""
        return from_data(self.view, data)
