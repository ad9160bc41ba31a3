"""What an experiment is: an id, a function that runs it, and the result it returns."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiments.claims import Claim
from harness.files import write_atomic

__all__ = ["Experiment", "ExperimentResult", "RunSettings", "dump_json"]


@dataclass(frozen=True)
class RunSettings:
    """Where an experiment reads its cassettes from."""

    cassette_root: Path
    """The ``cassettes/`` folder; each experiment uses its own sub-folder."""


@dataclass(frozen=True)
class ExperimentResult:
    """Everything one run of an experiment measured."""

    experiment: str
    claims: tuple[Claim, ...]
    data: dict[str, Any]
    """The experiment's full measurements; written to ``<id>.json``."""
    source: str
    """``scripted`` or ``provider/model`` of the cassettes."""
    provenance: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    """Provenance of each cassette used (empty for scripted experiments)."""


@dataclass(frozen=True)
class Experiment:
    """A registered experiment."""

    id: str
    title: str
    run: Callable[[RunSettings], ExperimentResult]
    needs_cassettes: bool


def dump_json(data: Any) -> str:
    """Deterministic, human-readable JSON (UTF-8 text kept, not escaped)."""
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, dump_json(data))
