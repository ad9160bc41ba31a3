"""What every E5 mechanism shares: the source label, the clock's start, the Q&A config and
the claim builders the seed-row modules use (the others are :class:`ClaimSpec` tables)."""

from __future__ import annotations

from experiments.base import ARTICLE_METER
from experiments.claims import Claim, Kind
from harness.compaction.agentscope import CompactionConfig
from harness.memory import parse_instant

__all__ = ["SOURCE", "START", "compared", "judged", "qa_config"]

EXPERIMENT = "E5"
SOURCE = "scripted"
START = parse_instant("2026-10-30T12:33:04Z")


def qa_config(trigger: int, keep: int) -> CompactionConfig:
    """Compaction by message count alone: no token trigger, no flush, no offload, no pruning."""
    return CompactionConfig.count_only(trigger, keep, meter=ARTICLE_METER)


def compared(
    claim_id: str,
    claim: str,
    article_value: str,
    reproduced_value: str,
    *,
    kind: Kind,
    article_source: str,
    differs_note: str = "",
) -> Claim:
    """A claim that matches exactly when the reproduced value reads as the article's."""
    return Claim.compare(
        EXPERIMENT,
        claim_id,
        claim,
        article_value,
        reproduced_value,
        SOURCE,
        differs_note=differs_note,
        kind=kind,
        article_source=article_source,
    )


def judged(
    claim_id: str,
    claim: str,
    article_value: str,
    reproduced_value: str,
    *,
    holds: bool,
    note: str = "",
    differs_note: str,
    kind: Kind,
    article_source: str,
) -> Claim:
    """A claim that matches when ``holds``; ``note`` goes with a match, ``differs_note`` not."""
    return Claim(
        EXPERIMENT,
        claim_id,
        claim,
        article_value,
        reproduced_value,
        "match" if holds else "differs",
        SOURCE,
        note if holds else differs_note,
        kind,
        article_source,
    )
