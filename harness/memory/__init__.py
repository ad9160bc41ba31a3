"""File-based long-term memory: daily ledger (L1), MEMORY.md (L2), flush, consolidation,
injection and tools. See ``runtime`` for how the pieces fit together."""

from harness.memory.background import BackgroundOrder, BackgroundTasks
from harness.memory.clock import (
    EPOCH,
    SteppingClock,
    SystemClock,
    format_instant,
    parse_instant,
)
from harness.memory.consolidation import ConsolidationOutcome, Consolidator, MaintenanceSchedule
from harness.memory.flush import NO_REPLY, FlushPolicy, MemoryFlusher
from harness.memory.injection import RECALL_GUIDANCE, cut_memory, reference_message
from harness.memory.runtime import MemoryConfig, MemoryRuntime
from harness.memory.tools import MemoryTools
from harness.memory.workspace import DailyEntry, MemoryWorkspace
from harness.text_search import rank_lines, tokenize

__all__ = [
    "EPOCH",
    "NO_REPLY",
    "RECALL_GUIDANCE",
    "BackgroundOrder",
    "BackgroundTasks",
    "ConsolidationOutcome",
    "Consolidator",
    "DailyEntry",
    "FlushPolicy",
    "MaintenanceSchedule",
    "MemoryConfig",
    "MemoryFlusher",
    "MemoryRuntime",
    "MemoryTools",
    "MemoryWorkspace",
    "SteppingClock",
    "SystemClock",
    "cut_memory",
    "format_instant",
    "parse_instant",
    "rank_lines",
    "reference_message",
    "tokenize",
]
