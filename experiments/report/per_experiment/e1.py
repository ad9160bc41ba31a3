"""E1's report: the history before and after one compaction, and where the cut fell.

:func:`e1_view` reads ``E1.json`` (see ``experiments/e1.py``) into an :class:`E1View`;
:func:`e1_section` renders it as the Measurements section of ``E1.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from experiments.report.glossary import english_column, gloss_note
from experiments.report.markdown import fence, markdown_table, shorten
from experiments.report.shape import get, objects
from experiments.report.tables import records_frame

__all__ = ["E1View", "MessageRow", "e1_section", "e1_view"]


@dataclass(frozen=True)
class MessageRow:
    """One message of E1's history."""

    index: int
    role: str
    kind: str
    """``summary``, ``user``, ``assistant``, ``tool_use`` or ``tool_result``."""
    estimated_tokens: int
    text: str
    """The message text, or its tool calls as ``name(arguments)`` when it has no text."""


@dataclass(frozen=True)
class E1View:
    """E1: the history before and after one compaction, and where the cut fell."""

    before: tuple[MessageRow, ...]
    after: tuple[MessageRow, ...]
    naive_cutoff: int
    """``len − keep``: where a cut that ignores tool pairs would fall."""
    cutoff: int
    """The safe cutoff the compactor used."""
    keeping: int
    reason: str
    log_lines: tuple[str, ...]
    estimated_tokens: int | None
    after_estimated_tokens: int | None

    @property
    def summary(self) -> str:
        """The summary message's text after compaction, or an empty string."""
        return next((m.text for m in self.after if m.kind == "summary"), "")


def _tool_calls_text(message: Mapping[str, Any]) -> str:
    calls = get(message, "tool_calls", list, optional=True) or []
    parts = []
    for call in calls:
        function = get(call, "function", Mapping)
        parts.append(f"{get(function, 'name', str)}({get(function, 'arguments', str)})")
    return "; ".join(parts)


def _message(message: Mapping[str, Any]) -> MessageRow:
    text = get(message, "text", str, optional=True) or _tool_calls_text(message)
    return MessageRow(
        get(message, "index", int),
        get(message, "role", str),
        get(message, "kind", str),
        get(message, "estimated_tokens", int),
        text,
    )


def e1_view(data: Mapping[str, Any]) -> E1View:
    """Read E1's JSON (see ``experiments/e1.py``)."""
    return E1View(
        tuple(_message(m) for m in objects(data, "before")),
        tuple(_message(m) for m in objects(data, "after")),
        get(data, "naive_cutoff", int),
        get(data, "cutoff", int),
        get(data, "keeping", int),
        get(data, "reason", str),
        tuple(str(line) for line in get(data, "log_lines", list)),
        get(data, "estimated_tokens", int, optional=True),
        get(data, "after_estimated_tokens", int, optional=True),
    )


def _messages_table(messages: tuple[MessageRow, ...], marks: Mapping[int, str]) -> str:
    frame = records_frame(messages, MessageRow)
    frame["text"] = frame["text"].map(lambda t: shorten(t, 90))
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
