"""The fault-injection suite's profiles: ``quick`` (default, part of ``pytest -q``) and ``long``
(``CTXLAB_FAULTS_PROFILE=long pytest -m faults``). ``CTXLAB_FAULTS_REPORT=FILE`` appends one
JSON line of figures per test to FILE."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

PROFILES = {"quick": (4, 0.5), "long": (120, 3.0)}
"""Kills per scenario, and how much longer the child may run before its kill: a factor of each
scenario's longest delay. A child works until it is killed, so its delays are the kills' CPU:
the quick profile's children run half of it (still dozens of acknowledged writes and several
compactions per test; a fault each kind of check guards still fails it, tried: docs/testing.md);
the long profile lets children get further (more acknowledged writes and compactions per
kill)."""


def _profile() -> tuple[int, float]:
    name = os.environ.get("CTXLAB_FAULTS_PROFILE", "quick")
    if name not in PROFILES:
        raise pytest.UsageError(f"CTXLAB_FAULTS_PROFILE must be one of {sorted(PROFILES)}")
    return PROFILES[name]


@pytest.fixture
def kills() -> int:
    return _profile()[0]


@pytest.fixture
def spread() -> float:
    return _profile()[1]


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> random.Random:
    seed = int(os.environ.get("CTXLAB_FAULTS_SEED", "0")) or random.randrange(1, 10**6)
    print(f"CTXLAB_FAULTS_SEED={seed} ({request.node.name})")
    return random.Random(seed)


@pytest.fixture
def report(request: pytest.FixtureRequest) -> Any:
    def write(figures: dict[str, Any]) -> None:
        target = os.environ.get("CTXLAB_FAULTS_REPORT")
        if target:
            line = json.dumps({"test": request.node.name, **figures}, ensure_ascii=False)
            with Path(target).open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")

    return write
