"""The experiments ``ctxlab run`` knows, in report order: each folder's ``EXPERIMENT``, loaded in
the order of :data:`experiments.manifest.MANIFEST` (the one list)."""

from __future__ import annotations

from importlib import import_module

from experiments.manifest import MANIFEST, Entry
from lab.errors import ExperimentError
from lab.experiment import Experiment

__all__ = ["EXPERIMENTS", "experiment_ids", "load"]


def load(entry: Entry) -> Experiment:
    """The ``EXPERIMENT`` of the folder ``entry`` names, checked against the entry."""
    experiment = getattr(import_module(f"experiments.{entry.folder}"), "EXPERIMENT", None)
    if not isinstance(experiment, Experiment) or experiment.id != entry.id:
        raise ExperimentError(
            f"experiments/{entry.folder}/ must define EXPERIMENT = Experiment.listed(__name__, "
            f"...) for {entry.id} (the manifest lists it)"
        )
    return experiment


EXPERIMENTS: dict[str, Experiment] = {entry.id: load(entry) for entry in MANIFEST}


def experiment_ids() -> list[str]:
    return list(EXPERIMENTS)
