"""E5: the claims the article computed or read from bytecode but never ran, run here.

Every model in this experiment is scripted (the claims are about the harness's mechanics, not
a model's wording), and the claims say ``scripted`` in their source column.

E5 is a group of sub-experiments, each measuring its part of the typed
:class:`~experiments.e5.view.E5View` (written as ``E5.json``) and judging it with a table of
:class:`~lab.claims.specs.ClaimSpec`, all evaluated by :func:`~lab.claims.specs.evaluate`:

* five small mechanisms, one module each under :mod:`~experiments.e5.mechanisms` (its
  measuring and its spec table; its part of the view in :mod:`~experiments.e5.view`):
  ``grid`` (the compaction cadence over trigger × keep), ``tool_calls`` (a tool-heavy round
  and a large tool result), ``failures`` (a failed summary, a context overflow, a failed
  consolidation write), ``flush_order`` (maintenance before or after the memory flush) and
  ``fallback`` (the 160K fallback for a model missing from the table);
* seven families of seed rows, each one module of the same name in :mod:`.measures` (runs
  it), :mod:`.view` (its typed part) and :mod:`.claims` (its spec table): ``seed_memory``
  (AgentScope's compaction and memory defaults as the seed states them), ``dsh_mechanics``
  (DeepSeek-Harness pressure, overflow, range back-off, summary checks, lock, manual errors),
  ``compaction_commit`` (what happens around one compaction's commit, both engines),
  ``edges`` (the offload threshold's edge, a tool call a crash left open, a failed close, an
  image block), ``peer_deviations`` (where ctxlab does otherwise than a peer's own tests),
  ``memory_switches`` (the memory pipeline's switches and timing) and ``dsh_steps`` (where
  the DSH checks and recovery fire).

:func:`measure` runs them all; :func:`experiments.e5.claims.claims` judges the view in
claims.csv's order; :mod:`~experiments.e5.page` renders it.

Rows carry ``kind`` ``article-computed`` where the seed computed or read the value from
bytecode without running it, ``article`` where the seed observed it, ``ctxlab`` for our own.
"""

from __future__ import annotations

from experiments.e5 import claims as e5_claims
from experiments.e5.common import SOURCE, START
from experiments.e5.measures.compaction_commit import measure_compaction_commit
from experiments.e5.measures.dsh_mechanics import measure_dsh_mechanics
from experiments.e5.measures.dsh_steps import measure_dsh_steps
from experiments.e5.measures.edges import measure_edges
from experiments.e5.measures.memory_switches import measure_memory_switches
from experiments.e5.measures.peer_deviations import measure_peer_deviations
from experiments.e5.measures.seed_memory import measure_seed_memory
from experiments.e5.mechanisms.failures import measure_failures
from experiments.e5.mechanisms.fallback import measure_fallback
from experiments.e5.mechanisms.flush_order import measure_flush_order
from experiments.e5.mechanisms.grid import cadence, formula_interval, measure_grid
from experiments.e5.mechanisms.tool_calls import measure_large_result, measure_tool_round
from experiments.e5.view import E5View
from lab import Experiment, ExperimentResult, RunSettings, to_data

__all__ = ["EXPERIMENT", "START", "cadence", "formula_interval", "measure", "run"]


def measure() -> E5View:
    """Run every mechanism once, scripted."""
    return E5View(
        experiment="E5",
        source=SOURCE,
        grid=measure_grid(),
        tool_heavy=measure_tool_round(),
        large_result=measure_large_result(),
        failures=measure_failures(),
        flush_order=measure_flush_order(),
        fallback=measure_fallback(),
        seed_memory=measure_seed_memory(),
        dsh=measure_dsh_mechanics(),
        more=measure_compaction_commit(),
        edges=measure_edges(),
        peers=measure_peer_deviations(),
        memory_switches=measure_memory_switches(),
        dsh_steps=measure_dsh_steps(),
    )


def run(settings: RunSettings) -> ExperimentResult:
    view = measure()
    return ExperimentResult("E5", e5_claims.claims(view), to_data(view), SOURCE)


EXPERIMENT = Experiment.listed(__name__, run, needs_cassettes=False, version=1, weight=0.7)
