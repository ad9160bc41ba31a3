"""Compaction configurations for tests: the AgentScope engine driven by message counts alone, so
a test decides exactly when it compacts and what it keeps."""

from __future__ import annotations

from typing import Any

from harness.compaction.agentscope import CompactionConfig

__all__ = ["count_only"]


def count_only(trigger: int, keep: int, **changes: Any) -> CompactionConfig:
    """Compact at ``trigger`` messages and keep the last ``keep``: no token trigger, no token
    tail, no prune, no memory flush or offload before the summary. ``changes`` set any field
    (``prune=PruneConfig()`` turns the default prune back on)."""
    fields: dict[str, Any] = {
        "trigger_messages": trigger,
        "keep_messages": keep,
        "keep_tokens": 0,
        "trigger_tokens": None,
        "prune": None,
        "flush_before_compact": False,
        "offload_before_compact": False,
    }
    return CompactionConfig(**{**fields, **changes})
