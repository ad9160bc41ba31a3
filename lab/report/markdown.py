"""Markdown building blocks shared by every page: tables, code fences and short texts.

Markdown tables are written here because ``DataFrame.to_markdown`` needs ``tabulate``, which
ctxlab does not depend on.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

__all__ = [
    "NEWLINE_MARK",
    "and_list",
    "escape_html",
    "fence",
    "flat_text",
    "markdown_table",
    "short_sha",
    "shorten",
]

NEWLINE_MARK = "⏎"
"""Stands for a line break in texts shortened onto one line."""


def shorten(text: str, limit: int) -> str:
    """``text`` on one line (runs of whitespace become one space), cut to ``limit`` with ``…``."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def flat_text(text: str, limit: int) -> str:
    """``text`` on one line with its line breaks shown as ``⏎``, cut to ``limit`` with ``…``."""
    marked = re.sub(r"\r\n|\r|\n", NEWLINE_MARK, str(text))
    return shorten(marked, limit)


def short_sha(digest: str) -> str:
    """The first 12 hex digits of a checksum, with ``…`` when it was longer."""
    return digest if len(digest) <= 12 else digest[:12] + "…"


def and_list(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:.*?[^`])??\1(?!`)", re.DOTALL)
_HTML_CHARS = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_LINE_BREAK = "<br>"


def _escape_prose(text: str) -> str:
    """``&``, ``<`` and ``>`` of ``text`` as entities, except the ``<br>`` tables put in cells."""
    parts = text.split(_LINE_BREAK)
    return _LINE_BREAK.join(re.sub(r"[&<>]", lambda m: _HTML_CHARS[m.group(0)], p) for p in parts)


def _escape_line(line: str) -> str:
    """One line outside a fence: prose escaped, code spans (shown literally) kept."""
    out, position = [], 0
    for span in _CODE_SPAN.finditer(line):
        out += [_escape_prose(line[position : span.start()]), span.group(0)]
        position = span.end()
    return "".join([*out, _escape_prose(line[position:])])


def escape_html(markdown: str) -> str:
    """``markdown`` with every ``&``, ``<`` and ``>`` outside code as an HTML entity.

    Model output and recorded text reach the pages (a ``<script>`` or ``<img onerror=...>`` in
    an answer would otherwise be live HTML wherever the page is rendered); fenced blocks and code
    spans show their text literally already and are kept as they are, as is the ``<br>`` of a
    table cell's line break."""
    lines, fence_mark = [], ""
    for line in markdown.split("\n"):
        opening = _FENCE.match(line)
        if fence_mark:
            if (
                opening
                and opening.group(1)[0] == fence_mark[0]
                and len(opening.group(1)) >= len(fence_mark)
                and not line.strip().strip(fence_mark[0])
            ):
                fence_mark = ""
            lines.append(line)
        elif opening:
            fence_mark = opening.group(1)
            lines.append(line)
        else:
            lines.append(_escape_line(line))
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    text = str(value).replace("\\", "\\\\").replace("|", "\\|")
    return re.sub(r"\r\n|\r|\n", "<br>", text)


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table; ``|`` and line breaks inside cells are escaped."""
    lines = [
        "| " + " | ".join(_cell(c) for c in frame.columns) + " |",
        "| " + " | ".join("---" for _ in frame.columns) + " |",
    ]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def fence(text: str, language: str = "") -> str:
    """``text`` in a fenced code block whose fence is longer than any backtick run inside."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{language}\n{text.rstrip(chr(10))}\n{marks}\n"
