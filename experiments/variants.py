"""Recorded variants: an experiment run again with one of ctxlab's own switches on.

A variant's cassettes live beside the plain ones in the same set folder, named
``<name>-<variant>.json`` (``cassettes/E3/<set>/rounds-gate.json``), because the switch changes
what later requests carry (E3's rounds after a gated compaction send the gated summary). Record
one with ``ctxlab record E3 E4 --provider local --variant gate``; the experiments themselves
replay their plain cassettes, and the experiment that compares the two (X1, the gate) replays
both.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from experiments.errors import ExperimentError
from harness.compaction.gate import GateConfig

__all__ = ["VARIANTS", "with_variant"]

VARIANTS: dict[str, str] = {
    "gate": "the identifier-survival gate on (harness/compaction/gate.py, GateConfig())",
}
"""The variants ``--variant`` knows, and what each turns on."""

Config = TypeVar("Config")


def with_variant(config: Config, variant: str) -> Config:
    """``config`` (a ``CompactionConfig`` or ``DshConfig``) with ``variant``'s switch on; the
    config itself for the plain run (``variant == ""``)."""
    if not variant:
        return config
    if variant == "gate":
        return dataclasses.replace(config, gate=GateConfig())  # type: ignore[type-var]
    known = ", ".join(VARIANTS)
    raise ExperimentError(f"Unknown variant {variant!r}; the variants are {known}.")
