"""E1's report: the history before and after one compaction, and where the cut fell.

``PAGE.read`` reads ``E1.json`` back into the :class:`~experiments.e1.view.E1View` that
``experiments/e1/__init__.py`` wrote it from;
:func:`e1_section` renders it as the Measurements section of ``E1.md``.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from experiments.e1.plot import e1_plot
from experiments.e1.view import E1View, MessageRow
from lab import Page, english_column, fence, gloss_note, markdown_table, shorten

__all__ = ["E1_ABOUT", "PAGE", "E1View", "MessageRow", "e1_section"]

E1_ABOUT = (
    "AgentScope's compaction algorithm on the seed's nine-message history, scripted: where the "
    "naive cutoff would fall (on a tool result), where the safe cutoff falls instead, and what "
    "the history holds afterwards."
)
"""What the experiment tests (its section of ``index.html`` opens with it)."""

COLUMNS = ("index", "role", "kind", "estimated_tokens", "text")


def _messages_table(messages: tuple[MessageRow, ...], marks: Mapping[int, str]) -> str:
    rows = [(m.index, m.role, m.kind, m.estimated_tokens, shorten(m.shown, 90)) for m in messages]
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    if marks:
        frame.insert(0, "cut", frame["index"].map(lambda i: marks.get(i, "")))
    frame = english_column(frame, ["text"])
    return markdown_table(frame.rename(columns={"estimated_tokens": "tokens"}))


def e1_section(view: E1View, claims: pd.DataFrame) -> str:
    """The messages before and after, both cutoffs, the summary and the log lines."""
    naive = next((m for m in view.before if m.index == view.naive_cutoff), None)
    naive_kind = f", a {naive.kind} message" if naive else ""
    marks = {view.naive_cutoff: "naive cutoff", view.cutoff: "safe cutoff"}
    if view.naive_cutoff == view.cutoff:
        marks = {view.cutoff: "naive = safe cutoff"}
    last = view.before[-1].index if view.before else view.cutoff
    tokens = f", {view.estimated_tokens} estimated tokens" if view.estimated_tokens else ""
    after_tokens = (
        f", {view.after_estimated_tokens} estimated tokens" if view.after_estimated_tokens else ""
    )
    parts = [
        f"### Before compaction ({len(view.before)} messages{tokens})\n",
        _messages_table(view.before, marks),
        f"- **Naive cutoff:** {view.naive_cutoff}{naive_kind}",
        f"- **Safe cutoff:** {view.cutoff}: messages {view.cutoff}–{last} are kept "
        f"({view.keeping} messages), the ones before are summarised",
        f"- **Reason:** {view.reason}\n",
        f"### After compaction ({len(view.after)} messages{after_tokens})\n",
        _messages_table(view.after, {}),
    ]
    if view.summary:
        parts += [
            "### The summary message\n",
            fence(view.summary, "text"),
            gloss_note(view.summary),
        ]
    parts += ["### Log lines\n", fence("\n".join(view.log_lines), "text")]
    return "\n".join(parts)


PAGE = Page(
    E1View,
    e1_section,
    E1_ABOUT,
    plot=e1_plot,
    judges={
        "e1-reason": "experiments.e1._reason: the cutoff reason names index 7, the move to 6, "
        "and why"
    },
)
