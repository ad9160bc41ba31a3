"""Each experiment's piece of the report, in the manifest's order: the ``PAGE`` of every
``experiments/<name>/page.py`` (:class:`~lab.report.piece.Page`).

:func:`read_view` and :func:`measurements_section` use them, so that an experiment without a
page, without a section of its own, or with a JSON of another shape, is rendered generically
instead of crashing the build."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pandas as pd

from experiments.manifest import MANIFEST, Entry
from lab.parallel import in_order
from lab.report.piece import Page
from lab.report.plots.canvas import Plot
from lab.report.tables import ExperimentDoc
from lab.views import ShapeError

__all__ = [
    "RecordedSets",
    "about",
    "build_plots",
    "experiment_pages",
    "glossary_files",
    "measurements_section",
    "read_view",
]


def _page(entry: Entry) -> Page[Any]:
    page = getattr(import_module(f"experiments.{entry.folder}.page"), "PAGE", None)
    if not isinstance(page, Page):
        raise TypeError(f"experiments/{entry.folder}/page.py must define PAGE = Page(...)")
    return page


@cache
def experiment_pages() -> dict[str, Page[Any]]:
    """Every experiment's page, by id, in report order (loaded on first use: a page imports
    the report's helpers, so this module cannot load them while it is being imported)."""
    return {entry.id: _page(entry) for entry in MANIFEST}


def glossary_files() -> list[Path]:
    """Each experiment's ``glossary.toml`` (the glosses of the Chinese its reports quote), in
    the manifest's order, where its folder has one (found without importing the experiment)."""
    found = []
    for entry in MANIFEST:
        spec = find_spec(f"experiments.{entry.folder}")
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


def measurements_section(view: object, claims: pd.DataFrame) -> str | None:
    """The Measurements section for ``view``; None without a view (render it generically)."""
    for page in experiment_pages().values():
        if page.section is not None and isinstance(view, page.view):
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
    for key, page in experiment_pages().items():
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
