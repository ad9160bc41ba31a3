"""History compaction with the semantics of AgentScope Java 2.0.3 (see ``compactor``)."""

from harness.compaction.compactor import Compaction, CompactionEvent, Compactor, PrefixHook
from harness.compaction.config import (
    DYNAMIC,
    FALLBACK_TRIGGER_TOKENS,
    CompactionConfig,
    PruneConfig,
    Thresholds,
    TruncateArgsConfig,
    resolve_thresholds,
)
from harness.compaction.cutoff import Cutoff, find_safe_cutoff
from harness.compaction.offload import LargeResultOffloader
from harness.compaction.prune import prune_tool_results, truncate_tool_arguments
from harness.compaction.summary import (
    DEFAULT_SUMMARY_PROMPT,
    SUMMARY_PREFIX,
    SUMMARY_UNAVAILABLE,
    build_summary_message,
    render_transcript,
    summarize,
)

__all__ = [
    "DEFAULT_SUMMARY_PROMPT",
    "DYNAMIC",
    "FALLBACK_TRIGGER_TOKENS",
    "SUMMARY_PREFIX",
    "SUMMARY_UNAVAILABLE",
    "Compaction",
    "CompactionConfig",
    "CompactionEvent",
    "Compactor",
    "Cutoff",
    "LargeResultOffloader",
    "PrefixHook",
    "PruneConfig",
    "Thresholds",
    "TruncateArgsConfig",
    "build_summary_message",
    "find_safe_cutoff",
    "prune_tool_results",
    "render_transcript",
    "resolve_thresholds",
    "summarize",
    "truncate_tool_arguments",
]
