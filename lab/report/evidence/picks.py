"""Which recorded calls a claim was judged on, per experiment.

Where an experiment's claims read particular calls, the rule is here and the page says the
evidence is exact: E3's claims read numbered rounds (round 4's and 5's answers for the recall,
round 3's for the reversal) or the summary calls, told apart by their request (an answer call
ends with one of the rounds' user messages, :attr:`~lab.report.piece.Page.rounds` of the
experiment's page; a summary call is the one before it). Elsewhere
no experiment records which interaction fed which claim, so the page shows every call of the
experiment's cassettes for the claim's model, and says so (:attr:`Picked.exact` False).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from lab.report.evidence.calls import Call

__all__ = ["CASSETTES", "Picked", "label_e3", "pick"]

CASSETTES: dict[str, tuple[str, ...]] = {
    "E2": ("E2/steps",),
    "E3": ("E3/rounds",),
    "E4": ("E4/compactions",),
    "X-GATE": ("E3/rounds", "E3/rounds-gate", "E4/compactions", "E4/compactions-gate"),
    "X-COST": ("E3/rounds", "E4/compactions"),
}
"""``<folder>/<name>`` of the cassettes each recorded experiment replays, in its set's folder."""

_SUMMARIES = ("round 3 summary", "round 4 summary", "round 5 summary")
E3_PICKS: dict[str, tuple[str, ...]] = {
    "E3-RECALL": ("round 4", "round 5"),
    "E3-RECALL-ROUTE": ("round 4", "round 5"),
    "E3-REVERSE": ("round 3",),
    "E3-WORDING": ("round 4",),
    "E3-SUMMARY": _SUMMARIES,
    "E3-SUMMARY-KEEPS": _SUMMARIES,
    "E3-SUMMARY-LEN": _SUMMARIES,
    "E3-SUMMARY-MERGED": _SUMMARIES,
    "E3-FINAL-TOKENS": ("round 5 summary", "round 5"),
}
"""The E3 calls each claim reads, by :func:`label_e3`'s labels; other E3 claims are structural
(decided by the harness) and show every call."""


@dataclass(frozen=True)
class Picked:
    calls: tuple[Call, ...]
    exact: bool
    """True when these are the calls the claim was judged on; False when they are all the
    calls of the experiment's cassettes for the model (no record of which fed the claim)."""


def label_e3(calls: Sequence[Call], rounds: Sequence[str]) -> list[Call]:
    """E3's calls labelled ``round N`` (an answer: its last message is ``rounds[N - 1]``) or
    ``round N summary`` (the compaction's summary call made before round N's answer)."""
    labelled: list[Call] = []
    pending: list[Call] = []
    for call in calls:
        last = call.messages[-1] if call.messages else None
        text = last.text.head if last and not last.text.cut else ""
        if last is not None and last.role == "user" and text in rounds:
            number = list(rounds).index(text) + 1
            labelled += [replace(c, label=f"round {number} summary") for c in pending]
            labelled.append(replace(call, label=f"round {number}"))
            pending = []
        else:
            pending.append(call)
    return labelled + [replace(c, label="summary") for c in pending]


def pick(experiment: str, claim_id: str, calls: Sequence[Call]) -> Picked:
    """The calls ``claim_id`` was judged on, from all of its experiment's ``calls`` (one
    model's)."""
    wanted = E3_PICKS.get(claim_id) if experiment == "E3" else None
    if experiment == "E3":
        calls = label_e3(calls, _rounds(experiment))
    if wanted is None:
        return Picked(tuple(calls), False)
    return Picked(tuple(c for c in calls if c.label in wanted), True)


def _rounds(experiment: str) -> tuple[str, ...]:
    """The user messages of ``experiment``'s numbered rounds, from its page."""
    from lab.report.experiments import experiment_pages

    page = experiment_pages().get(experiment)
    return page.rounds if page is not None else ()
