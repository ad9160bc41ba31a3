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
