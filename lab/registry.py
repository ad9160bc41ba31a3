"""The experiments ``ctxlab run`` knows, in report order: the ``EXPERIMENT`` of each folder of the
suite lab was handed (:mod:`lab.suite`), each imported the first time it is asked for.

:data:`EXPERIMENTS` is a mapping by id: its keys (the suite's ids, in order) need no import, an
item imports that experiment's folder alone, so ``ctxlab run E3`` loads E3 and what it reads,
not every experiment."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from importlib import import_module

from lab.errors import ExperimentError
from lab.experiment import Experiment
from lab.suite import Entry, Suite, current

__all__ = ["EXPERIMENTS", "Experiments", "experiment_ids", "load"]


@cache
def load(suite: Suite, entry: Entry) -> Experiment:
    """The ``EXPERIMENT`` of the folder ``entry`` names, checked against the entry."""
    module = suite.module(entry)
    experiment = getattr(import_module(module), "EXPERIMENT", None)
    if not isinstance(experiment, Experiment) or experiment.id != entry.id:
        raise ExperimentError(
            f"{module} must define EXPERIMENT = Experiment.listed(__name__, ...) for "
            f"{entry.id} (the suite lists it)"
        )
    return experiment


class Experiments(Mapping[str, Experiment]):
    """The current suite's experiments by id, each loaded when it is first looked up."""

    def __getitem__(self, experiment_id: str) -> Experiment:
        suite = current()
        return load(suite, suite.entry(experiment_id))

    def __contains__(self, experiment_id: object) -> bool:
        return experiment_id in current().ids()

    def __iter__(self) -> Iterator[str]:
        return iter(current().ids())

    def __len__(self) -> int:
        return len(current().entries)

    def title(self, experiment_id: str) -> str:
        """The experiment's one-line title, from the suite's list (nothing imported)."""
        return current().entry(experiment_id).title


EXPERIMENTS = Experiments()


def experiment_ids() -> list[str]:
    return current().ids()
