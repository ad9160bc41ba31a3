"""Evidence that is not calls: the outcomes an experiment judged its claims on, per
conversation and condition (X-BENCH's facts kept, lost or invented), as its page's
:attr:`~lab.report.piece.Evidence.facts` reads them from its JSON; the evidence page renders
them as one table per condition."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ConditionRuns", "FactsRow"]


@dataclass(frozen=True)
class FactsRow:
    """One conversation under one condition."""

    conversation: str
    kept: tuple[str, ...]
    lost: tuple[str, ...]
    invented: tuple[str, ...]
    compactions: int
    final_tokens: str
    cassette: str
    """The cassette the run replayed (empty for a model-free condition)."""


@dataclass(frozen=True)
class ConditionRuns:
    condition: str
    title: str
    rows: tuple[FactsRow, ...]
