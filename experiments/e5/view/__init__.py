"""E5's view: the claims the article computed or read from bytecode but never ran, run here.

Each sub-experiment of :mod:`experiments.e5` measures its part of an :class:`E5View`, which
the experiment writes as ``E5.json``; the claims and the page (:mod:`experiments.e5.page`)
read it. This module holds the five small mechanisms' parts
(:mod:`experiments.e5.mechanisms`); each family's part is the module of its name in this
package.
"""

from __future__ import annotations

from dataclasses import dataclass

from experiments.e3.view import CompactionRow
from experiments.e5.view.compaction_commit import CompactionCommit
from experiments.e5.view.dsh_mechanics import DshMechanics
from experiments.e5.view.dsh_steps import DshSteps
from experiments.e5.view.edges import EdgeMechanics
from experiments.e5.view.memory_switches import MemorySwitches
from experiments.e5.view.peer_deviations import PeerDeviations
from experiments.e5.view.seed_memory import SeedMemory

__all__ = [
    "ConsolidationWriteFailure",
    "E5View",
    "Failures",
    "FallbackProfile",
    "FlushOutcome",
    "GridCell",
    "LargeResult",
    "Overflow",
    "OverflowOnce",
    "SummaryFailure",
    "ToolHeavy",
]


@dataclass(frozen=True)
class GridCell:
    """One cell of E5's cadence grid: a plain Q&A agent with one trigger and one keep."""

    trigger: int
    keep: int
    first: int | None
    """The round of the first compaction; None when it never compacted."""
    first_formula: int
    """The article's ``ceil((trigger + 1) / 2)``."""
    intervals: tuple[int, ...]
    """Every distinct gap, in rounds, between two compactions, sorted."""
    interval: int | None
    """The gap when there was exactly one; None otherwise."""
    formula: int
    """The article's ``ceil((trigger − keep − 1) / 2)``."""
    compactions: int

    @property
    def agrees(self) -> bool:
        """Whether the measured interval is the formula's (the E5-CADENCE-GRID comparison)."""
        return self.interval == self.formula

    @property
    def measured_text(self) -> str:
        """The measured interval; several gaps joined by commas; ``-`` without any gap."""
        if self.interval is not None:
            return str(self.interval)
        return ",".join(map(str, self.intervals)) or "-"


@dataclass(frozen=True)
class ToolHeavy:
    """E5's one call with several tool rounds."""

    requests: int
    """Model requests of the agent in that call."""
    compactions_before_request: tuple[int, ...]
    """For each compaction, the model request (1-based, within the call) it ran before."""
    compactions: tuple[CompactionRow, ...]
    pairing_held: bool
    tool_calls: tuple[str, ...]

    def before_request(self, number: int) -> int | None:
        """The request compaction ``number`` (0-based) ran before; None when not recorded."""
        befores = self.compactions_before_request
        return befores[number] if number < len(befores) else None


@dataclass(frozen=True)
class LargeResult:
    """E5's 300,000-character tool result, offloaded and read back."""

    original_chars: int
    offloaded_to: str
    preview_chars: int
    preview_has_head: bool
    preview_has_tail: bool
    read_file_restores_text: bool
    read_file_result_chars: int
    read_file_result_offloaded: bool


@dataclass(frozen=True)
class SummaryFailure:
    """A summary call that fails."""

    compacted: bool
    messages_after: int | None
    summary_starts: str | None
    """The first 60 characters of the summary written in its place."""
    error_carried: bool = False
    """Whether that summary carries the error the summary call raised (its message, as the
    scripted server raised it), as the seed's "带错误信息" says."""


@dataclass(frozen=True)
class OverflowOnce:
    """One context-length error: the forced compaction and the retry."""

    compactions: int
    trigger: str | None
    answer: str


@dataclass(frozen=True)
class Overflow:
    """Context-length errors from the provider."""

    one_error: OverflowOnce
    two_errors: str
    """What a second context-length error in a row did."""


@dataclass(frozen=True)
class ConsolidationWriteFailure:
    """Writing MEMORY.md fails in consolidation, and the next consolidation."""

    failed_status: str
    watermark_after_failure: str
    watermark_unchanged: bool
    redone_status: str
    same_batch: bool
    facts_in_memory: tuple[str, ...]
    advanced_after_write: bool = False
    """The redone write moved the watermark: a third run finds nothing fresh and skips."""


@dataclass(frozen=True)
class Failures:
    """E5's failure paths: the summary call, a context overflow, a consolidation write."""

    summary_failure: SummaryFailure
    overflow: Overflow
    consolidation_write_failure: ConsolidationWriteFailure


@dataclass(frozen=True)
class FlushOutcome:
    """One order of memory flush and background maintenance."""

    maintenance: str | None
    log_line: str | None
    memory_exists: bool
    daily_files: int


@dataclass(frozen=True)
class FallbackProfile:
    """The thresholds one model-window table resolves for ``deepseek-flash``."""

    window: int
    trigger_tokens: int | None
    """None when the token trigger is off."""
    keep_tokens: int
    keep_messages: int
    explanation: str


@dataclass(frozen=True)
class E5View:
    """E5: the claims the article computed but never ran."""

    experiment: str
    source: str
    grid: tuple[GridCell, ...]
    """Sorted by trigger, then keep; one cell per pair."""
    tool_heavy: ToolHeavy
    large_result: LargeResult
    failures: Failures
    flush_order: dict[str, FlushOutcome]
    """By order: ``maintenance_first``, ``flush_first``."""
    fallback: dict[str, FallbackProfile]
    """By model-window table."""
    seed_memory: SeedMemory
    dsh: DshMechanics
    more: CompactionCommit
    """What happens around one compaction's commit, both engines (the field keeps its name:
    it is the key in ``E5.json``)."""
    edges: EdgeMechanics
    """The last of those rows, and the two the catalogue's former gaps flip."""
    peers: PeerDeviations
    """Where ctxlab deliberately does otherwise than a peer's own tests expect."""
    memory_switches: MemorySwitches
    """The rows for the memory switches and timing the AgentScope seed states."""
    dsh_steps: DshSteps
    """The rows for where the DSH checks and overflow recovery fire, and their edges."""

    def __post_init__(self) -> None:
        if not self.grid:
            raise ValueError("'grid' holds no cells")
        keys = [(c.trigger, c.keep) for c in self.grid]
        if len(set(keys)) != len(keys):
            raise ValueError("'grid' holds a trigger and keep twice")
        if keys != sorted(keys):
            raise ValueError("'grid' is not sorted by trigger, then keep")

    @property
    def triggers(self) -> tuple[int, ...]:
        """The grid's triggers, ascending."""
        return tuple(sorted({c.trigger for c in self.grid}))

    @property
    def keeps(self) -> tuple[int, ...]:
        """The grid's keeps, ascending."""
        return tuple(sorted({c.keep for c in self.grid}))

    def cell(self, trigger: int, keep: int) -> GridCell | None:
        """The cell for ``trigger`` and ``keep``; None when it was not run (keep ≥ trigger)."""
        return next((c for c in self.grid if c.trigger == trigger and c.keep == keep), None)

    @property
    def disagreeing(self) -> tuple[GridCell, ...]:
        """The cells whose measured interval is not the formula's."""
        return tuple(c for c in self.grid if not c.agrees)
