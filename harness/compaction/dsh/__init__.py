"""DeepSeek-Harness compaction: an engine over the append-only event log (see ``engine``)."""

from harness.compaction.dsh.config import DshConfig
from harness.compaction.dsh.engine import DshEngine, DshResult
from harness.compaction.dsh.selection import (
    CompactableRange,
    Measurement,
    measure,
    select_compactable_range,
    tool_pairing_balanced_before,
)
from harness.compaction.dsh.summarizer import (
    CHECKPOINT_NAME,
    DIRECTIVE,
    build_summary_request,
    frame_checkpoint,
    summarize_span,
)
from harness.meter.dsh_heuristic import price_message, price_text

__all__ = [
    "CHECKPOINT_NAME",
    "DIRECTIVE",
    "CompactableRange",
    "DshConfig",
    "DshEngine",
    "DshResult",
    "Measurement",
    "build_summary_request",
    "frame_checkpoint",
    "measure",
    "price_message",
    "price_text",
    "select_compactable_range",
    "summarize_span",
    "tool_pairing_balanced_before",
]
