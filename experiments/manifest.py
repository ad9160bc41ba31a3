"""Every experiment, in report order: the one list (pyperformance's ``MANIFEST``).

Each entry names an experiment's id, its folder under ``experiments/`` and its one-line title.
Everything else that is keyed by experiment id is derived from this list:
:data:`lab.registry.EXPERIMENTS` (each folder's ``EXPERIMENT``), the report's pages
and plots (each folder's ``page.PAGE``, :mod:`lab.report.experiments`) and the
``ctxlab --help`` epilog. This module imports nothing, so ``ctxlab --help`` stays fast.

To add an experiment: a folder ``experiments/<name>/`` with ``__init__.py`` (``EXPERIMENT``
and ``run``), ``claims.py``, ``view.py`` and ``page.py`` (``PAGE``: its section and plot), and
one line here.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["MANIFEST", "Entry", "entry", "folder_of"]


class Entry(NamedTuple):
    """One experiment: its id, its folder under ``experiments/`` and its one-line title."""

    id: str
    folder: str
    title: str


MANIFEST: tuple[Entry, ...] = (
    Entry("E1", "e1", "Compaction algorithm: 9 messages become 4, cutoff 6"),
    Entry("E2", "e2", "Memory pipeline: facts reach disk with no tool call"),
    Entry("E3", "e3", "Real agent, trigger 5 / keep 2: compaction from round 3 on"),
    Entry("E4", "e4", "One conversation, compacted once by each engine"),
    Entry("E5", "e5", "What the seeds computed or state but never ran, run with scripted models"),
    Entry(
        "X-GATE",
        "x_gate",
        "Identifier-survival gate: E3 and E4 planted facts kept with and without it",
    ),
    Entry(
        "X-THRASH",
        "x_thrash",
        "Compaction thrash under AgentScope defaults, with and without the guard",
    ),
    Entry(
        "X-COST",
        "x_cost",
        "Compaction cost ledger: summary calls against the tokens they remove (E3, E4)",
    ),
    Entry(
        "X-BENCH",
        "x_bench",
        "Compaction-quality benchmark: planted facts kept by each condition at one budget",
    ),
)


def entry(experiment_id: str) -> Entry:
    """The manifest entry of ``experiment_id``; KeyError when it is not listed."""
    for listed in MANIFEST:
        if listed.id == experiment_id:
            return listed
    raise KeyError(experiment_id)


def folder_of(module: str) -> Entry:
    """The entry of the experiment whose folder holds ``module`` (``experiments.e3`` → E3)."""
    parts = module.split(".")
    for listed in MANIFEST:
        if parts[:2] == ["experiments", listed.folder]:
            return listed
    raise KeyError(module)
