"""E5's claims: the five mechanisms' spec tables, then each family's rows, judged on the view.

The order here is the order of E5's rows in ``claims.csv``. Each family's table is the module
of its name in this package (its part of the view is the module of the same name in
:mod:`experiments.e5.view`); the mechanisms' tables sit beside their measuring in
:mod:`experiments.e5.mechanisms`."""

from __future__ import annotations

from experiments.e5.claims.compaction_commit import compaction_commit_claims
from experiments.e5.claims.dsh_mechanics import dsh_mechanics_claims
from experiments.e5.claims.dsh_steps import dsh_step_claims
from experiments.e5.claims.edges import edge_claims
from experiments.e5.claims.memory_switches import memory_switch_claims
from experiments.e5.claims.peer_deviations import peer_claims
from experiments.e5.claims.seed_memory import seed_memory_claims
from experiments.e5.common import SOURCE
from experiments.e5.mechanisms.failures import FAILURE_SPECS
from experiments.e5.mechanisms.fallback import FALLBACK_SPECS
from experiments.e5.mechanisms.flush_order import ORDER_SPECS
from experiments.e5.mechanisms.grid import GRID_SPECS
from experiments.e5.mechanisms.tool_calls import TOOL_SPECS
from experiments.e5.view import E5View
from lab import Claim, evaluate

__all__ = ["SPECS", "claims"]


def claims(view: E5View) -> tuple[Claim, ...]:
    """E5's claims: the mechanisms' spec tables judged on the view, then the seed rows."""
    return (
        *evaluate("E5", SPECS, view, SOURCE),
        *seed_memory_claims(view.seed_memory),
        *dsh_mechanics_claims(view.dsh),
        *compaction_commit_claims(view.more),
        *edge_claims(view.edges),
        *peer_claims(view.peers),
        *memory_switch_claims(view.memory_switches),
        *dsh_step_claims(view.dsh_steps),
    )


SPECS = (*GRID_SPECS, *TOOL_SPECS, *FAILURE_SPECS, *ORDER_SPECS, *FALLBACK_SPECS)
"""The claims of the grid, tool, failure, flush-order and fallback mechanisms."""
