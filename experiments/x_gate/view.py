"""X-GATE's view: the planted facts kept in the summaries, with and without the gate.

:mod:`experiments.x_gate` builds an :class:`XGateView` and writes it as ``X-GATE.json``; its
claims (:mod:`experiments.x_gate`) read it. X-GATE has no page of its own: the report shows its
JSON as recorded.
"""

from __future__ import annotations

from dataclasses import dataclass

from lab import Provenance

__all__ = ["E3GateRun", "E3GateRuns", "E4GateRuns", "GatedSummary", "XGateView"]


@dataclass(frozen=True)
class E3GateRun:
    """E3 replayed once, gate off or on: the summaries its later rounds carried."""

    summaries: tuple[str, ...]
    """The summary each compacted round left on the surface, in round order."""
    kept: tuple[tuple[str, ...], ...]
    """Per summary, the names of the planted facts it holds verbatim."""
    gate_added: tuple[tuple[str, ...], ...]
    """Per summary, the items of the gate's section (empty when it added nothing)."""
    round5_answer: str
    """The answer of the last round (which asks for the code word again)."""


@dataclass(frozen=True)
class E3GateRuns:
    """E3 without and with the gate."""

    off: E3GateRun
    on: E3GateRun


@dataclass(frozen=True)
class GatedSummary:
    """One E4 engine's summary on the surface after its compaction."""

    summary: str | None
    """None when the engine left no summary on the surface."""
    kept: tuple[str, ...]
    """The names of the planted facts it holds verbatim."""
    gate_added: tuple[str, ...]


@dataclass(frozen=True)
class E4GateRuns:
    """E4 without and with the gate: each engine's summary, by engine name."""

    off: dict[str, GatedSummary]
    on: dict[str, GatedSummary]


@dataclass(frozen=True)
class XGateView:
    """X-GATE: E3 and E4 replayed gate off and gate on, for one recorded set."""

    experiment: str
    source: str
    provenance: tuple[Provenance, ...]
    """The cassettes replayed: E3 then E4 (when recorded), gate off then gate on."""
    e3_facts: dict[str, str]
    """What E3 plants, by name."""
    e4_facts: dict[str, str]
    e3: E3GateRuns
    e4: E4GateRuns | None
    """None for a set that recorded E3 but not E4."""
