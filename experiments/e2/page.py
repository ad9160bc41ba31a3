"""E2's report: the memory files step by step.

``PAGE.read`` reads ``E2.json`` back into the :class:`~experiments.e2.view.E2View` that
``experiments/e2/__init__.py`` wrote it from;
:func:`e2_section` renders it as the Measurements section of ``E2.md``.
"""

from __future__ import annotations

import pandas as pd

from experiments.e2.plot import e2_plot
from experiments.e2.view import E2View, FileState, StepRow
from lab import Evidence, Page, english_column, markdown_table, shorten

__all__ = ["E2_ABOUT", "PAGE", "E2View", "FileState", "StepRow", "e2_section"]

E2_ABOUT = (
    "The memory pipeline in four steps against one workspace, replayed from a recorded model: "
    "facts reach the daily file without a tool call, consolidation writes MEMORY.md, a new "
    "session recalls the facts, and after MEMORY.md is deleted they are found again through the "
    "tools."
)
"""What the experiment tests (its section of ``index.html`` opens with it)."""


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


PAGE = Page(
    E2View,
    e2_section,
    E2_ABOUT,
    plot=e2_plot,
    plot_every_set=True,
    judges={"e2-rules": "experiments.e2.claims: E2's rules over the recorded steps"},
    evidence=Evidence(cassettes=("E2/steps",)),
)
