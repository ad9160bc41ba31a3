"""Which runs compare "at equal budget": those that compacted.

Every condition plays a conversation at one budget, but a condition that never compacted on it
(the history never reached the trigger under it: masking on chat with no tool outputs) kept
everything because it spent nothing, not because it kept well within the budget. Such a run is
marked ``never compacted`` (``bench-runs.csv``'s ``note``, ``bench.md`` and X-BENCH's page) and
left out of every figure that compares conditions at one budget: the headline
(:mod:`experiments.x_bench.headline`), the paired differences
(:mod:`experiments.x_bench.suite`) and the per-model claims
(:mod:`experiments.x_bench.model_claims`), each saying how many it left out. ``full`` never
compacts by design and is no comparison at a budget, so it is never marked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

__all__ = ["NEVER_COMPACTED", "Compacting", "at_equal_budget", "never_compacted"]

NEVER_COMPACTED = "never compacted"
UNBUDGETED = frozenset({"full"})
"""Conditions that compact nothing by design (no budget applies to them)."""


class Compacting(Protocol):
    """What is read of a run (a :class:`~experiments.x_bench.view.RunRecord` has it)."""

    @property
    def condition(self) -> str: ...

    @property
    def compactions(self) -> int: ...


def never_compacted(run: Compacting) -> bool:
    """Whether ``run`` is under a budgeted condition that never compacted."""
    return run.compactions == 0 and run.condition not in UNBUDGETED


R = TypeVar("R", bound=Compacting)


def at_equal_budget(runs: Sequence[R]) -> list[R]:
    """``runs`` without those that never compacted."""
    return [r for r in runs if not never_compacted(r)]
