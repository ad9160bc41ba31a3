"""E3's report: five rounds of a real agent with trigger 5 / keep 2.

:func:`e3_view` reads ``E3.json`` (see ``experiments/e3.py``) into an :class:`E3View`;
:func:`e3_section` renders it as the Measurements section of ``E3.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from experiments.report.glossary import english_column, gloss_note
from experiments.report.markdown import fence, markdown_table, shorten
from experiments.report.shape import get, objects

__all__ = ["E3View", "RoundRow", "e3_section", "e3_view"]


@dataclass(frozen=True)
class RoundRow:
    """One round of E3: the user's message, the context around the call, any compaction."""

    round: int
    user: str
    visible_before: int
    """Messages in the history when the call started."""
    visible_after: int
    """Messages in the history when the call ended."""
    compacted: bool
    total_messages: int | None
    """Messages when compaction triggered; None in rounds without compaction."""
    cutoff: int | None
    keeping: int | None
    messages_after: int | None
    summary_chars: int | None
    answer: str
    summary: str
    """The summary this round's compaction wrote, or an empty string."""


@dataclass(frozen=True)
class E3View:
    """E3: five rounds of a real agent with trigger 5 / keep 2."""

    rounds: tuple[RoundRow, ...]
    final_summary: str

    @property
    def compacted_rounds(self) -> tuple[int, ...]:
        """The rounds in which compaction fired."""
        return tuple(r.round for r in self.rounds if r.compacted)


_COMPACTION_COUNTS = ("total_messages", "cutoff", "keeping", "messages_after", "summary_chars")


def _round(record: Mapping[str, Any]) -> RoundRow:
    event = get(record, "compaction", Mapping, optional=True)
    counts: list[int | None] = (
        [None] * len(_COMPACTION_COUNTS)
        if event is None
        else [get(event, key, int) for key in _COMPACTION_COUNTS]
    )
    total_messages, cutoff, keeping, messages_after, summary_chars = counts
    return RoundRow(
        round=get(record, "round", int),
        user=get(record, "user", str),
        visible_before=get(record, "visible_before", int),
        visible_after=get(record, "visible_after", int),
        compacted=event is not None,
        total_messages=total_messages,
        cutoff=cutoff,
        keeping=keeping,
        messages_after=messages_after,
        summary_chars=summary_chars,
        answer=get(record, "answer", str),
        summary="" if event is None else get(event, "summary", str),
    )


def e3_view(data: Mapping[str, Any]) -> E3View:
    """Read E3's JSON (see ``experiments/e3.py``, ``measure`` and ``_round_record``)."""
    final = get(data, "final_summary_message", Mapping, optional=True)
    rounds = sorted((_round(r) for r in objects(data, "rounds")), key=lambda r: r.round)
    return E3View(tuple(rounds), "" if final is None else get(final, "text", str))


def e3_section(view: E3View, claims: pd.DataFrame) -> str:
    """One row per round, then each compaction's summary and the final one."""
    rows = [
        {
            "round": r.round,
            "user": r.user,
            "context before → after": f"{r.visible_before} → {r.visible_after}",
            "compaction total / cutoff / keeping / after": (
                f"{r.total_messages} / {r.cutoff} / {r.keeping} / {r.messages_after}"
                if r.compacted
                else "—"
            ),
            "summary chars": "" if r.summary_chars is None else r.summary_chars,
            "answer": shorten(r.answer, 160),
        }
        for r in view.rounds
    ]
    rounds = english_column(pd.DataFrame(rows), ["user", "answer"])
    parts = ["### Rounds\n", markdown_table(rounds)]
    summaries = [r for r in view.rounds if r.compacted]
    if summaries:
        parts.append("### Summaries\n")
    for r in summaries:
        parts += [
            f"#### Round {r.round} ({r.summary_chars} characters)\n",
            fence(r.summary, "text"),
            gloss_note(r.summary),
        ]
    if view.final_summary and view.final_summary != (summaries[-1].summary if summaries else ""):
        parts += [
            "### Summary message in the final context\n",
            fence(view.final_summary, "text"),
            gloss_note(view.final_summary),
        ]
    return "\n".join(parts)
