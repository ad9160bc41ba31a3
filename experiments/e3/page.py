"""E3's report: five rounds of a real agent with trigger 5 / keep 2.

``PAGE.read`` reads ``E3.json`` back into the :class:`~experiments.e3.view.E3View` that
``experiments/e3/__init__.py`` wrote it from;
:func:`e3_section` renders it as the Measurements section of ``E3.md``.
"""

from __future__ import annotations

import pandas as pd

from experiments.e3.evidence import E3_EVIDENCE
from experiments.e3.plot import e3_plot
from experiments.e3.view import E3View, RoundRow
from lab import Page, english_column, fence, gloss_note, markdown_table, shorten

__all__ = ["E3_ABOUT", "PAGE", "E3View", "RoundRow", "e3_section"]

E3_ABOUT = (
    "A real agent over five rounds with trigger 5 / keep 2, replayed from a recorded model: "
    "compaction fires from round 3 on, the summaries have four sections, and the code word of "
    "round 1 must survive them."
)
"""What the experiment tests (its section of ``index.html`` opens with it)."""


def _counts(r: RoundRow) -> str:
    c = r.compaction
    return (
        "—" if c is None else f"{c.total_messages} / {c.cutoff} / {c.keeping} / {c.messages_after}"
    )


def e3_section(view: E3View, claims: pd.DataFrame) -> str:
    """One row per round, then each compaction's summary and the final one."""
    rows = [
        {
            "round": r.round,
            "user": r.user,
            "context before → after": f"{r.visible_before} → {r.visible_after}",
            "compaction total / cutoff / keeping / after": _counts(r),
            "summary chars": "" if r.compaction is None else r.compaction.summary_chars,
            "answer": shorten(r.answer, 160),
        }
        for r in view.rounds
    ]
    rounds = english_column(pd.DataFrame(rows), ["user", "answer"])
    parts = ["### Rounds\n", markdown_table(rounds)]
    summaries = [(r, r.compaction) for r in view.rounds if r.compaction]
    if summaries:
        parts.append("### Summaries\n")
    for r, c in summaries:
        parts += [
            f"#### Round {r.round} ({c.summary_chars} characters)\n",
            fence(r.summary, "text"),
            gloss_note(r.summary),
        ]
    if view.final_summary and view.final_summary != (summaries[-1][1].summary if summaries else ""):
        parts += [
            "### Summary message in the final context\n",
            fence(view.final_summary, "text"),
            gloss_note(view.final_summary),
        ]
    return "\n".join(parts)


PAGE = Page(
    E3View,
    e3_section,
    E3_ABOUT,
    plot=e3_plot,
    plot_every_set=True,
    judges={"e3-rules": "experiments.e3.claims: E3's rules over the recorded rounds"},
    evidence=E3_EVIDENCE,
)
