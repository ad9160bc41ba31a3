"""Every experiment, in report order: the one list (pyperformance's ``MANIFEST``), and the suite
it makes, which is handed to lab (:data:`SUITE`, :class:`lab.suite.Suite`).

Each entry names an experiment's id, its folder under ``experiments/`` and its one-line title.
Everything else that is keyed by experiment id is derived from this list:
:data:`lab.registry.EXPERIMENTS` (each folder's ``EXPERIMENT``), the report's pages
and plots (each folder's ``page.PAGE``, :mod:`lab.report.experiments`) and the
``ctxlab --help`` epilog. The suite also names the mutation catalogue
(:mod:`experiments.mutations.catalogue`) and the subcommands experiments add to ``ctxlab`` (an
entry's ``commands``: X-BENCH's ``bench``, :mod:`experiments.x_bench.cli`); lab imports each
only when it is asked for. This module imports nothing but :mod:`lab.suite` (which imports
nothing), so ``ctxlab --help`` stays fast.

The suite starts here: the ``ctxlab`` command (:mod:`experiments.cli`) and the pytest plugin
(:mod:`experiments.pytest_plugin`) hand :data:`SUITE` to lab.

To add an experiment: a folder ``experiments/<name>/`` with ``__init__.py`` (``EXPERIMENT``
and ``run``), ``claims.py``, ``view.py`` and ``page.py`` (``PAGE``: its section and plot), and
one line here.
"""

from __future__ import annotations

from lab import Command, Entry, Suite

__all__ = ["MANIFEST", "SUITE", "Entry", "entry"]


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
        # ``ctxlab bench`` (experiments/x_bench/cli.py)
        (
            Command(
                "bench", "run X-BENCH live or on your own conversations (docs/bench.md)", live=True
            ),
            Command(
                "compactbench",
                "CompactBench's runner and scorer with ctxlab's engines beside its methods",
                module="cli_compactbench",
                live=True,
            ),
        ),
    ),
)

SUITE = Suite(
    home=__name__,
    package="experiments",
    entries=MANIFEST,
    mutations="experiments.mutations.catalogue",
)
"""What lab is handed: the experiments in report order and what they add to ``ctxlab``."""


def entry(experiment_id: str) -> Entry:
    """The manifest entry of ``experiment_id``; KeyError when it is not listed."""
    return SUITE.entry(experiment_id)
