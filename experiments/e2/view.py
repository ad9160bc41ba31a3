"""E2's view: the memory pipeline's four steps against one workspace.

:mod:`experiments.e2` builds an :class:`E2View` and writes it as ``E2.json``; its claims
(:mod:`experiments.e2.claims`) and its page (:mod:`experiments.e2.page`) read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.memory import ConsolidationOutcome
from lab import RecordedView

__all__ = ["E2View", "FileState", "StepRow"]


@dataclass(frozen=True)
class FileState:
    """One memory file after a step."""

    exists: bool
    size: int
    """Bytes; 0 when the file does not exist."""


@dataclass(frozen=True)
class StepRow:
    """One step of E2: a chat (steps 1, 3, 4) or the consolidation by hand (step 2)."""

    step: int
    title: str
    tool_calls: tuple[str, ...]
    answer: str
    files: dict[str, FileState]
    """The tracked memory files by path."""
    watermark: str | None
    """The consolidation watermark after the step; None before the first consolidation."""
    user: str = ""
    """What the user said (empty for the consolidation step)."""
    sources: tuple[str, ...] = ()
    """The files the tool results cite (``Source: <file>#<line>``), sorted."""
    error: str | None = None
    maintenance: tuple[str, ...] = ()
    """The log line of each maintenance check of the step (``not due`` when none was due)."""
    memory_at_start: str = ""
    """MEMORY.md as the step's session found it (what was injected)."""
    memory_injected: tuple[str, ...] = ()
    """The MEMORY.md text each agent request of the step carried as reference material, in
    request order ("" for a request that carried none)."""
    tool_result_facts: tuple[str, ...] = ()
    """The facts the step's tool results held."""
    daily_added: str = ""
    """What the step appended to the daily file."""
    consolidation: ConsolidationOutcome | None = None
    consolidation_input: str = ""
    """The user message of the consolidation request (step 2)."""
    daily_unchanged: bool | None = None
    memory_text: str | None = None
    """MEMORY.md after the consolidation (step 2); None when it was not written."""
    memory_rebuilt: bool | None = None
    """Whether MEMORY.md was written again after it was deleted (step 4)."""

    def size(self, path: str) -> int:
        """The size of the tracked file ``path`` after the step (0 when it does not exist)."""
        return self.files[path].size


@dataclass(frozen=True)
class E2View(RecordedView):
    """E2: the memory files step by step."""

    tool_calls_read_from_text: bool
    steps: tuple[StepRow, ...]
    """In step order."""
    final_daily_text: str
    model_calls: dict[str, int]
    """Requests by purpose (agent, flush, consolidation, ...)."""

    def __post_init__(self) -> None:
        numbers = [s.step for s in self.steps]
        if numbers != sorted(numbers):
            raise ValueError("'steps' are not in step order")

    @property
    def paths(self) -> tuple[str, ...]:
        """Every file seen in any step, sorted."""
        return tuple(sorted({path for s in self.steps for path in s.files}))
