"""E2's report: the memory files step by step.

:func:`e2_view` reads ``E2.json`` back into the :class:`~experiments.views.e2.E2View` that
``experiments/e2.py`` wrote it from;
:func:`e2_section` renders it as the Measurements section of ``E2.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from experiments.report.glossary import english_column
from experiments.report.markdown import markdown_table, shorten
from experiments.views import from_data
from experiments.views.e2 import E2View, FileState, StepRow

__all__ = ["E2_ABOUT", "E2View", "FileState", "StepRow", "e2_section", "e2_view"]

E2_ABOUT = (
    "The memory pipeline in four steps against one workspace, replayed from a recorded model: "
    "facts reach the daily file without a tool call, consolidation writes MEMORY.md, a new "
    "session recalls the facts, and after MEMORY.md is deleted they are found again through the "
    "tools."
)
"""What the experiment tests (its section of ``index.html`` opens with it)."""


def e2_view(data: Mapping[str, Any]) -> E2View:
    """Read E2's JSON (written by ``experiments/e2.py`` from the same view)."""
    return from_data(E2View, data)


def _files_text(step: StepRow) -> str:
    return "; ".join(
        f"{path}: {step.files[path].size} B" if step.files[path].exists else f"{path}: missing"
        for path in sorted(step.files)
    )


def e2_section(view: E2View, claims: pd.DataFrame) -> str:
    """One row per step: its tool calls, answer, files and watermark."""
    rows = [
        {
            "step": s.step,
            "title": s.title,
            "tool calls": ", ".join(s.tool_calls),
            "answer": shorten(s.answer, 160),
            "files": _files_text(s),
            "watermark": s.watermark or "",
        }
        for s in view.steps
    ]
    return "### Steps\n\n" + markdown_table(english_column(pd.DataFrame(rows), ["answer"]))
