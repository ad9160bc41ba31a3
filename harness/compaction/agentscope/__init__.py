"""AgentScope Java 2.0.3 compaction: prune, safe cutoff, memory flush hook, summary merge.

* :mod:`~harness.compaction.agentscope.config` — :class:`CompactionConfig`, the trigger and
  keep thresholds (messages or tokens, ``dynamic`` keep) and how they resolve;
* :mod:`~harness.compaction.agentscope.profile` — :func:`ctxlab_profile`, ctxlab's own
  default on top of AgentScope's;
* :mod:`~harness.compaction.agentscope.prune` — tool-result pruning and argument truncation;
* :mod:`~harness.compaction.agentscope.cutoff` — the **safe cutoff** that never splits a tool
  call from its results;
* :mod:`~harness.compaction.agentscope.compactor` — the compaction step (plan, then summary);
* :mod:`~harness.compaction.agentscope.engine` — :class:`AgentScopeEngine`, the compactor as the
  agent loop calls it (the memory flush and the prefix record between plan and summary);
* :mod:`~harness.compaction.agentscope.summary` — the summary call and the **summary merge**
  (one ``<compressed_history>`` message replaces the prefix and any earlier summary).
"""

from harness.compaction.agentscope.compactor import (
    Compaction,
    CompactionRecord,
    Compactor,
    PrefixHook,
)
from harness.compaction.agentscope.config import (
    DYNAMIC,
    FALLBACK_TRIGGER_TOKENS,
    CompactionConfig,
    PruneConfig,
    Thresholds,
    TruncateArgsConfig,
    resolve_thresholds,
)
from harness.compaction.agentscope.cutoff import Cutoff, find_safe_cutoff
from harness.compaction.agentscope.profile import CTXLAB_GATE, CTXLAB_SUMMARY_BUDGET, ctxlab_profile
from harness.compaction.agentscope.prune import prune_tool_results, truncate_tool_arguments
from harness.compaction.agentscope.summary import (
    DEFAULT_SUMMARY_PROMPT,
    SUMMARY_PREFIX,
    SUMMARY_UNAVAILABLE,
    build_summary_message,
    render_transcript,
    summarize,
)

__all__ = [
    "CTXLAB_GATE",
    "CTXLAB_SUMMARY_BUDGET",
    "DEFAULT_SUMMARY_PROMPT",
    "DYNAMIC",
    "FALLBACK_TRIGGER_TOKENS",
    "SUMMARY_PREFIX",
    "SUMMARY_UNAVAILABLE",
    "Compaction",
    "CompactionConfig",
    "CompactionRecord",
    "Compactor",
    "Cutoff",
    "PrefixHook",
    "PruneConfig",
    "Thresholds",
    "TruncateArgsConfig",
    "build_summary_message",
    "ctxlab_profile",
    "find_safe_cutoff",
    "prune_tool_results",
    "render_transcript",
    "resolve_thresholds",
    "summarize",
    "truncate_tool_arguments",
]
