"""Model output reaches the Markdown reports as text, never as live HTML.

A recorded answer or summary holding ``<script>`` or ``<img onerror=...>`` would run wherever
``E3.md`` or ``claims.md`` is rendered; ``index.html`` already escapes it. Fenced blocks and code
spans show their text literally, so only the prose and table cells are escaped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from test_report import synthetic_e3, write_inputs

from lab.claims import Claim, claims_frame, read_claims, write_claims
from lab.experiment import write_json
from lab.report import build_reports
from lab.report.markdown import escape_html

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> a & b'


def _outside_code(markdown: str) -> str:
    """``markdown`` less its fenced blocks and code spans (which render literally)."""
    kept, fence = [], ""
    for line in markdown.split("\n"):
        mark = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if fence:
            fence = "" if mark and mark.group(1).startswith(fence) else fence
            continue
        if mark:
            fence = mark.group(1)
            continue
        kept.append(re.sub(r"(`+).*?\1", "", line))
    return "\n".join(kept)


def _hostile_e3(folder: Path) -> None:
    data = synthetic_e3()
    for row in data["rounds"]:
        row["answer"] = HOSTILE
        row["user"] = HOSTILE
    write_json(folder / "E3.json", data)
    claims = read_claims(folder / "claims.csv")
    hostile = Claim("E3", "E3-HOSTILE", f"claim {HOSTILE}", HOSTILE, HOSTILE, "match", "local/x")
    write_claims(pd.concat([claims, claims_frame([hostile])]), folder / "claims.csv")


def test_model_html_in_e3_and_claims_pages_is_escaped(tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    write_inputs(folder, "E3")
    _hostile_e3(folder)
    build_reports(folder)
    for name in ("E3.md", "claims.md"):
        prose = _outside_code((folder / name).read_text(encoding="utf-8"))
        assert "&lt;script&gt;" in prose, name  # the text is still there, as text
        for live in ("<script", "<img", "onerror=alert(1)>"):
            assert live not in prose, f"{name} holds live HTML {live!r}"
        assert "a &amp; b" in prose


def test_code_and_table_breaks_are_kept() -> None:
    text = "| `a<b` | x<br>y |\n```text\n<i>\n```\n<i> & `<j>`"
    assert escape_html(text) == "| `a<b` | x<br>y |\n```text\n<i>\n```\n&lt;i&gt; &amp; `<j>`"


def test_an_unclosed_backtick_does_not_shield_html() -> None:
    assert escape_html("`<script>") == "`&lt;script&gt;"
