"""Which recorded calls E3's claims read, for their evidence pages: numbered rounds (round 4's
and 5's answers for the recall, round 3's for the reversal) or the summary calls, told apart by
their request (an answer call ends with one of :data:`experiments.e3.ROUNDS`; a summary call is
the one before it). Its page hands them to the report (:attr:`lab.report.piece.Page.evidence`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from lab import Call, Evidence

__all__ = ["E3_EVIDENCE", "E3_PICKS", "label_e3"]

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


def label_e3(calls: Sequence[Call]) -> list[Call]:
    """E3's calls labelled ``round N`` (an answer) or ``round N summary`` (the compaction's
    summary call made before round N's answer)."""
    from experiments.e3 import ROUNDS  # on use: the report reads pages without E3's runner

    labelled: list[Call] = []
    pending: list[Call] = []
    for call in calls:
        last = call.messages[-1] if call.messages else None
        text = last.text.head if last and not last.text.cut else ""
        if last is not None and last.role == "user" and text in ROUNDS:
            number = ROUNDS.index(text) + 1
            labelled += [replace(c, label=f"round {number} summary") for c in pending]
            labelled.append(replace(call, label=f"round {number}"))
            pending = []
        else:
            pending.append(call)
    return labelled + [replace(c, label="summary") for c in pending]


E3_EVIDENCE = Evidence(cassettes=("E3/rounds",), label=label_e3, picks=E3_PICKS)
