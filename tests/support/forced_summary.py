"""One forced AgentScope compaction whose summary model answers a fixed text: how the tests of
ctxlab's summary filters (echo, source check) see what a profile makes of a summary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from harness.compaction.agentscope import (
    CompactionConfig,
    Compactor,
    ctxlab_profile,
    resolve_thresholds,
)
from harness.compaction.record import CompactionRecord
from harness.messages import Message
from harness.testing import FunctionModel

__all__ = ["compacted", "small_profile", "small_seed"]

_SMALL = {"trigger_messages": 0, "trigger_tokens": 1_000, "keep_tokens": 30, "prune": None}
_NO_SIDE_EFFECTS = {"flush_before_compact": False, "offload_before_compact": False}


def compacted(config: CompactionConfig, span: Sequence[Message], answer: str) -> CompactionRecord:
    """The event of compacting ``span`` plus one user turn, the summary model answering
    ``answer``."""
    compactor = Compactor(config, resolve_thresholds(config, "m"), FunctionModel(lambda _: answer))
    compaction = compactor.force([*span, Message.user("next?")])
    assert compaction is not None
    return compaction.event


def small_profile(**changes: object) -> CompactionConfig:
    """ctxlab's profile at a 1,000-token trigger and a 30-token tail, with no side effect."""
    return replace(ctxlab_profile(), **(_SMALL | _NO_SIDE_EFFECTS | changes))  # type: ignore[arg-type]


def small_seed() -> CompactionConfig:
    """The seed's profile (``CompactionConfig()``) at the same trigger and tail."""
    return replace(CompactionConfig(**_SMALL), **_NO_SIDE_EFFECTS)  # type: ignore[arg-type]
