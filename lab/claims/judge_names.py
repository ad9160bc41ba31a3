"""The judges' stable names: a claim's note names the rule that judged it by one of these, never
by a file path (files move; a name stays). Each name maps to the code that holds the rule, as a
dotted name for the reader. This table holds the shared judges; an experiment's own judges are
on its page (:attr:`lab.report.piece.Page.judges`). ``tests/lab/test_judge_names.py`` fails on
a note that names a file, or a judge neither table holds."""

from __future__ import annotations

import re

__all__ = ["JUDGES", "named_judges"]

JUDGES: dict[str, str] = {
    "filled_sections": ("lab.claims.judges.filled_sections: sections with content under them"),
    "invented_codes": ("lab.claims.judges.invented_codes: customer codes a text never held"),
    "call_attempts": ("lab.claims.judges.call_attempts: tool names an answer tried to call"),
    "copied_messages": ("lab.claims.answer_judges.copied_messages: a user's message copied whole"),
    "carries_previous": (
        "lab.claims.answer_judges.carries_previous: the old summary in the request"
    ),
    "text-call-reader": "lab.recorder.textcalls: tool calls a model wrote as text",
}

NAMED = re.compile(r"judge `([^`]+)`")


def named_judges(note: str) -> list[str]:
    """The judge names a note cites (``judge `name```)."""
    return NAMED.findall(note)
