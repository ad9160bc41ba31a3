"""Each experiment's piece of the report, in the suite's order: the ``PAGE`` of the ``page``
module of every experiment's folder (:class:`~lab.report.piece.Page`), each imported the first
time the report shows that experiment (:mod:`lab.suite`).

:func:`read_view` and :func:`measurements_section` use them, so that an experiment without a
page, without a section of its own, or with a JSON of another shape, is rendered generically
instead of crashing the build."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from functools import cache
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from lab.parallel import in_order
from lab.report.piece import Page
from lab.report.tables import ExperimentDoc
from lab.suite import Suite, current
from lab.views import ShapeError

if TYPE_CHECKING:  # matplotlib is imported where a plot is drawn (each page's plot module)
    from lab.report.plots.canvas import Plot

__all__ = [
    "RecordedSets",
    "about",
    "build_plots",
    "experiment_pages",
    "glossary_files",
    "measurements_section",
    "read_view",
]


class Pages(MutableMapping[str, Page[Any]]):
    """One suite's pages by experiment id, in its order, each imported when first looked up (a
    test may replace one: tests/support/plot_memo.py wraps the plots)."""

    def __init__(self, suite: Suite) -> None:
        self.suite = suite
        self.loaded: dict[str, Page[Any]] = {}

    def __getitem__(self, experiment_id: str) -> Page[Any]:
        if experiment_id not in self.loaded:
            module = self.suite.module(self.suite.entry(experiment_id), "page")
            page = getattr(import_module(module), "PAGE", None)
            if not isinstance(page, Page):
                raise TypeError(f"{module} must define PAGE = Page(...)")
            self.loaded[experiment_id] = page
        return self.loaded[experiment_id]

    def __setitem__(self, experiment_id: str, page: Page[Any]) -> None:
        self.loaded[experiment_id] = page

    def __delitem__(self, experiment_id: str) -> None:
        del self.loaded[experiment_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self.suite.ids())

    def __len__(self) -> int:
        return len(self.suite.entries)


@cache
def _pages(suite: Suite) -> Pages:
    return Pages(suite)


def experiment_pages() -> Pages:
    """The current suite's pages, by id, in report order (one mapping per suite; a page is
    imported on first use: a page imports the report's helpers, so this module cannot load
    them while it is being imported)."""
    return _pages(current())


def glossary_files() -> list[Path]:
    """Each experiment's ``glossary.toml`` (the glosses of the Chinese its reports quote), in
    the manifest's order, where its folder has one (found without importing the experiment)."""
    suite = current()
    found = []
    for entry in suite.entries:
        spec = find_spec(suite.module(entry))
        folders = spec.submodule_search_locations if spec is not None else None
        found += [p for f in folders or () if (p := Path(f) / "glossary.toml").is_file()]
    return found


def about(experiment: str) -> str:
    """What ``experiment`` tests, from its page; empty when unknown."""
    page = experiment_pages().get(experiment)
    return page.about if page is not None else ""


def read_view(doc: ExperimentDoc) -> tuple[Any, str]:
    """The experiment's typed view, or None and why it must be rendered generically."""
    if doc.data is None:
        return None, doc.error
    page = experiment_pages().get(doc.id.split("@", 1)[0])
    if page is None or page.section is None:
        return None, "no dedicated page for this experiment"
    try:
        return page.read(doc.data), ""
    except ShapeError as error:
        return None, f"its JSON is not shaped as expected ({error})"


def measurements_section(experiment: str, view: object, claims: pd.DataFrame) -> str | None:
    """The Measurements section of ``experiment``'s ``view``; None without a view (render it
    generically)."""
    page = experiment_pages().get(experiment.split("@", 1)[0])
    if page is not None and page.section is not None and isinstance(view, page.view):
        return page.section(view, claims)
    return None


RecordedSets = Sequence[tuple[str, Any]]
"""An experiment's views, one per recorded set, each with its model's name; the first set is
the experiment's own ``<ID>.json``."""


def build_plots(sets: Mapping[str, RecordedSets], jobs: int = 1) -> list[Plot]:
    """The plots of the experiments whose views are present, sorted by name: a recorded
    experiment's plot shows every one of its sets whose view could be read. ``jobs`` worker
    processes render them side by side (:mod:`lab.parallel`)."""
    drawn = []
    pages = experiment_pages()
    for key in [key for key in pages if key in sets]:
        page = pages[key]
        if page.plot is None:
            continue
        shown = [(model, view) for model, view in sets.get(key, ()) if isinstance(view, page.view)]
        if shown:
            drawn.append((key, shown))
    plots = list(in_order(_plot, drawn, jobs))
    return sorted(plots, key=lambda p: p.name)


def _plot(job: tuple[str, RecordedSets]) -> Plot:
    """The plot of one experiment's page from its readable views (module level: a worker
    process runs it)."""
    key, shown = job
    page = experiment_pages()[key]
    if page.plot is None:
        raise ValueError(f"{key}'s page has no plot")
    return page.plot(shown) if page.plot_every_set else page.plot(shown[0][1])
