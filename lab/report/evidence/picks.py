"""Which recorded calls a claim was judged on: what the experiment's page says
(:class:`~lab.report.piece.Evidence`).

Where an experiment's claims read particular calls, its page labels its calls and names, per
claim, the labels it reads, and the evidence page says the evidence is exact (E3: numbered
rounds and their summary calls). Elsewhere no experiment records which interaction fed which
claim, so the page shows every call of the experiment's cassettes for the claim's model, and
says so (:attr:`Picked.exact` False).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lab.report.evidence.calls import Call
from lab.report.piece import Evidence

__all__ = ["Picked", "pick"]


@dataclass(frozen=True)
class Picked:
    calls: tuple[Call, ...]
    exact: bool
    """True when these are the calls the claim was judged on; False when they are all the
    calls of the experiment's cassettes for the model (no record of which fed the claim)."""


def pick(evidence: Evidence, claim_id: str, calls: Sequence[Call]) -> Picked:
    """The calls ``claim_id`` was judged on, from all of its experiment's ``calls`` (one
    model's), as the experiment's ``evidence`` labels and picks them."""
    if evidence.label is not None:
        calls = evidence.label(calls)
    wanted = evidence.picks.get(claim_id)
    if wanted is None:
        return Picked(tuple(calls), False)
    return Picked(tuple(c for c in calls if c.label in wanted), True)
