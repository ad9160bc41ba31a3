"""Rules that judge recorded model output: pure functions over text, shared by the experiments.

Each rule returns what it found (a reason, a list, a route), never a verdict string of its own:
the experiment turns the finding into a claim's status. Every rule has hand-made inputs in
``tests/experiments/test_judges.py`` on which it passes and on which it fails.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

__all__ = [
    "EMPTY_CONTENT",
    "echoes",
    "filled_sections",
    "invented_codes",
    "markdown_headings",
    "recall_route",
    "verbatim_copy",
]

EMPTY_CONTENT = re.compile(r"^[\s\-*•]*(none|\(none\)|n/?a|无|暂无|-|—)?[\s.。]*$", re.IGNORECASE)
"""A section body line that says nothing: blank, a bare bullet, or only "None" and the like."""

LEDGER_SCAFFOLD = re.compile(r"^(### memory/\S+\.md|## Memory (Flush|Save) — \S+)$")
"""Lines the consolidation input wraps around daily entries (file heading, entry header)."""


LEDGER_MARK = "New daily ledger entries"
"""Where the daily entries start in the consolidation request (harness/memory/consolidation.py);
lines before it are the current MEMORY.md, which a rewrite may keep as they are."""


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def verbatim_copy(memory: str, consolidation_input: str) -> str | None:
    """Why ``memory`` (a written MEMORY.md) is a verbatim copy of the daily entries it was made
    from, or None when it is a rewrite.

    A copy either carries the ledger's own scaffolding (the ``### memory/<day>.md`` file heading
    or a ``## Memory Flush — <instant>`` header: a rewrite has no reason to keep them), or
    consists only of lines that occur, as they are, among the daily entries of the
    consolidation input (lines of the current MEMORY.md may be kept by a rewrite). The seed: the
    consolidation "输出整篇重写；它不是把 daily 的内容 cat 到文件末尾".
    """
    lines = _lines(memory)
    if not lines:
        return None
    scaffold = [line for line in lines if LEDGER_SCAFFOLD.match(line)]
    if scaffold:
        return f"it keeps the ledger's scaffolding ({'; '.join(scaffold)})"
    ledger = consolidation_input.split(LEDGER_MARK, 1)[-1]  # the old MEMORY.md may be kept
    source = set(_lines(ledger))
    if all(line in source for line in lines):
        return f"all {len(lines)} of its lines are lines of the consolidation input, unchanged"
    return None


def markdown_headings(text: str) -> list[str]:
    """The titles of the ``#``-headings of a markdown text, in order."""
    return [m.group(1).strip() for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M)]


def filled_sections(
    text: str, sections: Sequence[str], instructions: Iterable[str] = ()
) -> list[str]:
    """The ``sections`` that appear as markdown headings of ``text`` with real content under them.

    A heading alone does not count, nor a section whose body is only "None", "(none)", "N/A",
    a bare bullet or blank lines (see :data:`EMPTY_CONTENT`), nor one whose body only echoes
    a line of ``instructions`` (the prompt that asked for the sections: its own description
    of a section, copied back, word for word or nearly, see :func:`echoes`).
    """
    wanted = {s.casefold(): s for s in sections}
    asked = [line for line in instructions if line.strip()]
    filled: list[str] = []
    current: str | None = None
    for line in text.splitlines():
        heading = re.match(r"^#{1,6}\s+(.+?)\s*#*\s*$", line.strip())
        if heading:
            current = wanted.get(heading.group(1).strip().casefold())
            continue
        said = not EMPTY_CONTENT.match(line) and not echoes(line, asked)
        if current and current not in filled and said:
            filled.append(current)
    return [s for s in sections if s in filled]


ECHO_SIMILARITY = 0.8
"""How close a line must be to an instruction line to count as its echo (difflib's ratio):
the 0.5B Qwen answered "重要 context, decisions with their reasons, …" for the prompt's
"Important context, decisions with their reasons, …" (ratio 0.96)."""


def _key(line: str) -> str:
    return " ".join(line.strip(" \t-*•").split()).casefold()


def echoes(line: str, instructions: Iterable[str]) -> bool:
    """Whether ``line`` only repeats one of ``instructions``, whitespace, case and a leading
    bullet aside, word for word or nearly (:data:`ECHO_SIMILARITY`)."""
    key = _key(line)
    if not key:
        return False
    return any(
        difflib.SequenceMatcher(None, key, _key(asked)).ratio() >= ECHO_SIMILARITY
        for asked in instructions
        if _key(asked)
    )


def recall_route(word: str, summaries: Iterable[str], tail: Iterable[str]) -> str:
    """How ``word`` reached a request: ``summary``, ``kept tail``, ``summary and kept tail``, or
    ``neither`` (the context held it nowhere, so a correct answer came from elsewhere)."""
    in_summary = any(word in s for s in summaries)
    in_tail = any(word in t for t in tail)
    if in_summary and in_tail:
        return "summary and kept tail"
    return "summary" if in_summary else "kept tail" if in_tail else "neither"


CODE_PATTERN = re.compile(r"(?:客户代号|customer code)\s*(?:是|为|:|：|is)?\s*([A-Za-z0-9][\w-]*)")


def invented_codes(flushed: str, conversation: str) -> list[str]:
    """Customer codes a flush wrote that the conversation never said, in order of appearance."""
    found = dict.fromkeys(m.group(1) for m in CODE_PATTERN.finditer(flushed))
    return [code for code in found if code not in conversation]


CALL_NAME = re.compile(r'"name"\s*:\s*"([A-Za-z_][\w-]*)"')


def call_attempts(answer: str) -> list[str]:
    """Tool names an answer tried to call in text (``"name": "memory_save"``, JSON or not): a
    call the text-call reader could not read (a brace missing, say) is still an attempt."""
    return [m.group(1) for m in CALL_NAME.finditer(answer)]
