"""The experiments ``ctxlab run`` knows, in report order."""

from __future__ import annotations

from experiments import e1
from experiments.base import Experiment

__all__ = ["EXPERIMENTS", "experiment_ids"]

EXPERIMENTS: dict[str, Experiment] = {
    "E1": Experiment("E1", "Compaction algorithm: 9 messages become 4, cutoff 6", e1.run, False),
}


def experiment_ids() -> list[str]:
    return list(EXPERIMENTS)
