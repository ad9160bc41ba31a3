"""E5: the claims the article computed or read from bytecode but never ran, run here.

Every model in this experiment is scripted (the claims are about the harness's mechanics, not
a model's wording), and the claims say ``scripted`` in their source column.

Each mechanism has a module with a function that measures its part of the typed
:class:`~experiments.e5.view.E5View` and a table of :class:`~lab.claims.specs.ClaimSpec`
that judges it (the seed rows' tables are in :mod:`~experiments.e5.seed_rows` and
:mod:`~experiments.e5.dsh_rows`), all evaluated by :func:`~lab.claims.specs.evaluate`:

* :mod:`~experiments.e5.grid`: the compaction cadence over trigger × keep;
* :mod:`~experiments.e5.tool_calls`: a tool-heavy round and a large tool result;
* :mod:`~experiments.e5.failures`: a failed summary, a context overflow, a failed
  consolidation write;
* :mod:`~experiments.e5.flush_order`: maintenance before or after the memory flush;
* :mod:`~experiments.e5.fallback`: the 160K fallback for a model missing from the table;
* :mod:`~experiments.e5.seed_memory`: AgentScope defaults, offload path, injection, NO_REPLY,
  memory_save and the consolidation cadence and cap, as the seed states them;
* :mod:`~experiments.e5.dsh_mechanics`: DeepSeek-Harness pressure, overflow, range back-off,
  summary checks, the lock and the manual error classes;
* :mod:`~experiments.e5.compact_hooks` and :mod:`~experiments.e5.dsh_commit`: the pre-compaction
  hooks, disableCompaction, and DeepSeek-Harness's commit and overflow bookkeeping (rows in
  :mod:`~experiments.e5.more_rows`);
* :mod:`~experiments.e5.edge_rows`: the offload threshold's edge, a tool call a crash left
  open, a DSH compaction whose close fails, and image content;
* :mod:`~experiments.e5.peer_rows`: where ctxlab deliberately does otherwise than a peer's own
  tests expect (``tests/conformance/``);
* :mod:`~experiments.e5.memory_switches`: the flush and maintenance after a successful call
  only, disableMemoryTools, flushTrigger and disableMemoryHooks, the 90-day archive, Source
  line numbers and an invented fact carried into MEMORY.md (rows in
  :mod:`~experiments.e5.memory_switch_rows`);
* :mod:`~experiments.e5.dsh_steps`: the DSH pre-step check, the summary request's prefix with
  tools, the pressure and "must be smaller" edges, an earlier checkpoint merged, and which
  errors enter overflow recovery (rows in :mod:`~experiments.e5.dsh_step_rows`).

Rows carry ``kind`` ``article-computed`` where the seed computed or read the value from
bytecode without running it, ``article`` where the seed observed it, ``ctxlab`` for our own.
"""

from __future__ import annotations

from experiments.e5.common import SOURCE, START
from experiments.e5.dsh_mechanics import measure_dsh_mechanics
from experiments.e5.dsh_rows import dsh_mechanics_claims
from experiments.e5.dsh_step_rows import dsh_step_claims
from experiments.e5.dsh_steps import measure_dsh_steps
from experiments.e5.edge_rows import edge_claims, measure_edges
from experiments.e5.failures import FAILURE_SPECS, measure_failures
from experiments.e5.fallback import FALLBACK_SPECS, measure_fallback
from experiments.e5.flush_order import ORDER_SPECS, measure_flush_order
from experiments.e5.grid import GRID_SPECS, cadence, formula_interval, measure_grid
from experiments.e5.memory_switch_rows import memory_switch_claims
from experiments.e5.memory_switches import measure_memory_switches
from experiments.e5.more_rows import measure_more, more_claims
from experiments.e5.peer_rows import measure_peer_deviations, peer_claims
from experiments.e5.seed_memory import measure_seed_memory
from experiments.e5.seed_rows import seed_memory_claims
from experiments.e5.tool_calls import TOOL_SPECS, measure_large_result, measure_tool_round
from experiments.e5.view import E5View
from lab.claims import Claim
from lab.claims.specs import evaluate
from lab.experiment import Experiment, ExperimentResult, RunSettings
from lab.views import to_data

__all__ = ["EXPERIMENT", "START", "cadence", "claims", "formula_interval", "measure", "run"]


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
        more=measure_more(),
        edges=measure_edges(),
        peers=measure_peer_deviations(),
        memory_switches=measure_memory_switches(),
        dsh_steps=measure_dsh_steps(),
    )


def run(settings: RunSettings) -> ExperimentResult:
    view = measure()
    return ExperimentResult("E5", claims(view), to_data(view), SOURCE)


def claims(view: E5View) -> tuple[Claim, ...]:
    """E5's claims: the mechanisms' spec tables judged on the view, then the seed rows."""
    return (
        *evaluate("E5", SPECS, view, SOURCE),
        *seed_memory_claims(view.seed_memory),
        *dsh_mechanics_claims(view.dsh),
        *more_claims(view.more),
        *edge_claims(view.edges),
        *peer_claims(view.peers),
        *memory_switch_claims(view.memory_switches),
        *dsh_step_claims(view.dsh_steps),
    )


SPECS = (*GRID_SPECS, *TOOL_SPECS, *FAILURE_SPECS, *ORDER_SPECS, *FALLBACK_SPECS)
"""The claims of the grid, tool, failure, flush-order and fallback mechanisms."""


EXPERIMENT = Experiment.listed(__name__, run, needs_cassettes=False, version=1, weight=0.7)
