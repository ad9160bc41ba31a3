"""What the claims' notes say on many rows, said once per section of ``index.html`` instead.

A note is a list of clauses (``; ``-separated). :data:`PHRASES` are the clauses the judges
append to every row they judge the same way (``model output as recorded``, ``judged by a rule
in experiments/e3/``, ...). :func:`split_notes` takes them out of each row's note and returns,
once, the sentence each stands for, so that a row's note keeps only what is its own. The full
note stays in ``claims.csv`` and in the claims table at the end of the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["PHRASES", "Phrase", "split_notes"]


@dataclass(frozen=True)
class Phrase:
    """A clause said on many rows: the pattern that finds it, and what the section says once
    (``{0}`` is each distinct first group the pattern captured, joined)."""

    pattern: re.Pattern[str]
    once: str


JUDGE = r"(?:judge `[\w-]+`|experiments/[\w/]+\.py)"
"""How a note names its judge: by its stable name (or, in older notes, by a file)."""

PHRASES: tuple[Phrase, ...] = (
    Phrase(
        re.compile(r"model output as recorded(?: \(([^()]*)\))?"),
        "values of a recorded model are its output as recorded in its cassette",
    ),
    Phrase(
        re.compile(r"judged (?:strictly )?by (?:a rule in )?(JUDGE)(?!:)".replace("JUDGE", JUDGE)),
        "judged by a rule in {0}",
    ),
    Phrase(
        re.compile(
            r"it writes tool calls as JSON text, not API tool_calls, and the harness reads them"
            r"(?: \((JUDGE)\))?".replace("JUDGE", JUDGE)
        ),
        "the model writes tool calls as JSON text, not API tool_calls, and the harness reads "
        "them (judge `text-call-reader`)",
    ),
    Phrase(
        re.compile(r"ctxlab's own check \(no seed states a value\)"),
        "rows of kind ctxlab are ctxlab's own checks: no seed states a value",
    ),
    Phrase(
        re.compile(
            r"judged strictly by (JUDGE): a fact counts only when it appears verbatim in the "
            r"summary message the conversation goes on with".replace("JUDGE", JUDGE)
        ),
        "judged strictly by {0}: a fact counts only when it appears verbatim in the summary "
        "message the conversation goes on with",
    ),
)
"""The clauses said once per section."""


def _strip(note: str, phrase: Phrase, found: list[str]) -> str:
    def take(match: re.Match[str]) -> str:
        found.append((match.group(1) or "") if match.groups() else "")
        return ""

    return phrase.pattern.sub(take, note)


def _tidy(note: str) -> str:
    """A note whose clauses were taken out: no empty clauses, no stray separators."""
    clauses = [c.strip(" ,") for c in re.split(r";\s*", note)]
    text = "; ".join(c for c in clauses if c)
    return text[:1].upper() + text[1:] if text else ""


@dataclass(frozen=True)
class SplitNotes:
    """Each row's own note, and the sentences said once for all of them."""

    notes: tuple[str, ...]
    once: tuple[str, ...]


def split_notes(notes: Sequence[str], phrases: Iterable[Phrase] = PHRASES) -> SplitNotes:
    """Take :data:`PHRASES` out of ``notes``; return what is left of each and, once, what the
    phrases found stand for (in :data:`PHRASES` order)."""
    rows = list(notes)
    once: list[str] = []
    for phrase in phrases:
        found: list[str] = []
        rows = [_strip(note, phrase, found) for note in rows]
        if not found:
            continue
        groups = [g for g in dict.fromkeys(found) if g]
        once.append(phrase.once.format(", ".join(groups)) if "{0}" in phrase.once else phrase.once)
    changed = [_tidy(r) if r != n else n for r, n in zip(rows, notes, strict=True)]
    return SplitNotes(tuple(changed), tuple(once))
