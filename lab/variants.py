"""Recorded variants: an experiment run again with one of ctxlab's own switches on.

Where the switch changes what later requests carry (E3's rounds after a gated compaction send
the gated summary), the variant has cassettes of its own, beside the plain ones in the same set
folder, named ``<name>-<variant>.json`` (``cassettes/E3/<set>/rounds-gate.json``); record them
with ``ctxlab record E3 --provider local --variant gate``. Where it changes no request (E4: the
gate edits the summary after the summary call, and no request follows the compactions), the
variant replays the plain cassettes with the switch on, and replay proves it: every request is
matched and every recorded answer played. Each experiment says which variants change its
requests (:attr:`lab.experiment.Experiment.own_variants`). The experiments themselves
replay their plain cassettes; X-GATE (the gate) replays both.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from harness.compaction.guards.gate import GateConfig
from lab.errors import ExperimentError

__all__ = ["VARIANTS", "cassette_variant", "declare_own_variants", "with_variant"]

VARIANTS: dict[str, str] = {
    "gate": "the identifier-survival gate on (harness/compaction/guards/gate.py, GateConfig())",
}
"""The variants ``--variant`` knows, and what each turns on."""

Config = TypeVar("Config")


_OWN: dict[str, tuple[str, ...]] = {}
"""Each experiment's :attr:`~lab.experiment.Experiment.own_variants`, declared when the
experiment is made (this module never imports the registry: the registry loads experiments)."""


def declare_own_variants(experiment_id: str, variants: tuple[str, ...]) -> None:
    """Record which variants change ``experiment_id``'s requests (done by each
    :class:`~lab.experiment.Experiment` as it is made)."""
    _OWN[experiment_id] = tuple(variants)


def cassette_variant(experiment_id: str, variant: str) -> str:
    """The variant suffix of ``experiment_id``'s cassettes under ``variant``: the variant when
    it changes the experiment's requests (its :attr:`~lab.experiment.Experiment.own_variants`,
    declared when the experiment was loaded), else ``""`` (the plain cassettes serve)."""
    if not variant:
        return ""
    return variant if variant in _OWN.get(experiment_id, ()) else ""


def with_variant(config: Config, variant: str) -> Config:
    """``config`` (a ``CompactionConfig`` or ``DshConfig``) with ``variant``'s switch on; the
    config itself for the plain run (``variant == ""``)."""
    if not variant:
        return config
    if variant == "gate":
        return dataclasses.replace(config, gate=GateConfig())  # type: ignore[type-var]
    known = ", ".join(VARIANTS)
    raise ExperimentError(f"Unknown variant {variant!r}; the variants are {known}.")
