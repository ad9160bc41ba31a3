"""E5: the claims the article computed or read from bytecode but never ran, run here.

Every model in this experiment is scripted (the claims are about the harness's mechanics, not
a model's wording), and the claims say ``scripted`` in their source column.

Each mechanism has a module with a function that measures it and one that judges it:

* :mod:`~experiments.e5.grid`: the compaction cadence over trigger × keep;
* :mod:`~experiments.e5.tool_calls`: a tool-heavy round and a large tool result;
* :mod:`~experiments.e5.failures`: a failed summary, a context overflow, a failed
  consolidation write;
* :mod:`~experiments.e5.flush_order`: maintenance before or after the memory flush;
* :mod:`~experiments.e5.fallback`: the 160K fallback for a model missing from the table;
* :mod:`~experiments.e5.seed_memory`: AgentScope defaults, offload path, injection, NO_REPLY,
  memory_save and the consolidation cadence and cap, as the seed states them;
* :mod:`~experiments.e5.dsh_mechanics`: DeepSeek-Harness pressure, overflow, range back-off,
  summary checks, the lock and the manual error classes.

Rows carry ``kind`` ``article-computed`` where the seed computed or read the value from
bytecode without running it, ``article`` where the seed observed it, ``ctxlab`` for our own.
"""

from __future__ import annotations

from typing import Any

from experiments.base import ExperimentResult, RunSettings
from experiments.claims import Claim
from experiments.e5.common import SOURCE, START
from experiments.e5.dsh_mechanics import dsh_mechanics_claims, measure_dsh_mechanics
from experiments.e5.failures import failure_claims, measure_failures
from experiments.e5.fallback import fallback_claims, measure_fallback
from experiments.e5.flush_order import flush_order_claims, measure_flush_order
from experiments.e5.grid import cadence, formula_interval, grid_claims, measure_grid
from experiments.e5.seed_memory import measure_seed_memory, seed_memory_claims
from experiments.e5.tool_calls import (
    measure_large_result,
    measure_tool_round,
    offload_claim,
    tool_round_claim,
)

__all__ = ["START", "cadence", "formula_interval", "measure", "run"]


def measure() -> dict[str, Any]:
    return {
        "experiment": "E5",
        "source": SOURCE,
        "grid": measure_grid(),
        "tool_heavy": measure_tool_round(),
        "large_result": measure_large_result(),
        "failures": measure_failures(),
        "flush_order": measure_flush_order(),
        "fallback": measure_fallback(),
        "seed_memory": measure_seed_memory(),
        "dsh": measure_dsh_mechanics(),
    }


def run(settings: RunSettings) -> ExperimentResult:
    data = measure()
    return ExperimentResult("E5", _claims(data), data, SOURCE)


def _claims(data: dict[str, Any]) -> tuple[Claim, ...]:
    return (
        *grid_claims(data["grid"]),
        tool_round_claim(data["tool_heavy"]),
        offload_claim(data["large_result"]),
        *failure_claims(data["failures"]),
        *flush_order_claims(data["flush_order"]),
        *fallback_claims(data["fallback"]),
        *seed_memory_claims(data["seed_memory"]),
        *dsh_mechanics_claims(data["dsh"]),
    )
