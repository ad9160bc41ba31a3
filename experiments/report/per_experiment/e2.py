"""E2's report: the memory files step by step.

:func:`e2_view` reads ``E2.json`` (see ``experiments/e2.py``) into an :class:`E2View`;
:func:`e2_section` renders it as the Measurements section of ``E2.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from experiments.report.glossary import english_column
from experiments.report.markdown import markdown_table, shorten
from experiments.report.shape import get, objects

__all__ = ["E2View", "FileState", "StepRow", "e2_section", "e2_view"]


@dataclass(frozen=True)
class FileState:
    """One memory file after a step."""

    path: str
    exists: bool
    size: int
    """Bytes; 0 when the file does not exist."""


@dataclass(frozen=True)
class StepRow:
    """One step of E2."""

    step: int
    title: str
    tool_calls: tuple[str, ...]
    answer: str
    files: tuple[FileState, ...]
    """Sorted by path."""
    watermark: str | None


@dataclass(frozen=True)
class E2View:
    """E2: the memory files step by step."""

    steps: tuple[StepRow, ...]

    @property
    def paths(self) -> tuple[str, ...]:
        """Every file seen in any step, sorted."""
        return tuple(sorted({f.path for s in self.steps for f in s.files}))


def _file(path: str, state: Any) -> FileState:
    exists = get(state, "exists", bool)
    return FileState(path, exists, get(state, "size", int))


def _step(record: Mapping[str, Any]) -> StepRow:
    files = get(record, "files", Mapping)
    return StepRow(
        get(record, "step", int),
        get(record, "title", str),
        tuple(str(c) for c in get(record, "tool_calls", list)),
        get(record, "answer", str),
        tuple(_file(str(p), files[p]) for p in sorted(files, key=str)),
        get(record, "watermark", str, optional=True),
    )


def e2_view(data: Mapping[str, Any]) -> E2View:
    """Read E2's JSON: ``steps`` of step, title, tool_calls, answer, files, watermark."""
    steps = sorted((_step(s) for s in objects(data, "steps")), key=lambda s: s.step)
    return E2View(tuple(steps))


def _files_text(step: Any) -> str:
    return "; ".join(
        f"{f.path}: {f.size} B" if f.exists else f"{f.path}: missing" for f in step.files
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
