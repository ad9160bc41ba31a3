"""One factory for both compaction engines: :func:`make_engine`.

The agent loop takes a ready :class:`~harness.compaction.engine.CompactionEngine` (or None for
no compaction); this is the one place that knows which config builds which engine, and which
combinations cannot work:

* DSH on a state store: its compactions are transactions on the event log;
* DSH with a memory flush: DeepSeek-Harness has no flush before compaction, so a flush hook
  would be silently ignored; it is refused instead (AgentScope's engine runs it, step 5).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import overload

from harness.compaction.agentscope import (
    CompactionConfig,
    Compactor,
    PrefixHook,
    resolve_thresholds,
)
from harness.compaction.agentscope.engine import AgentScopeEngine
from harness.compaction.dsh.config import DshConfig
from harness.compaction.dsh.engine import DshEngine
from harness.compaction.engine import CompactionEngine
from harness.errors import ConfigError
from harness.meter.windows import CTXLAB_WINDOWS
from harness.model import ChatModel
from harness.store.eventlog import EventLogHistory
from harness.store.history import History

__all__ = ["EngineConfig", "flushes", "make_engine"]

EngineConfig = CompactionConfig | DshConfig
"""A config that names its engine: AgentScope's or DeepSeek-Harness's."""


@overload
def make_engine(
    config: CompactionConfig,
    model: ChatModel,
    *,
    history: History | None = None,
    summary_model: ChatModel | None = None,
    flush: PrefixHook | None = None,
    windows: Mapping[str, int] = CTXLAB_WINDOWS,
) -> AgentScopeEngine: ...


@overload
def make_engine(
    config: DshConfig,
    model: ChatModel,
    *,
    history: History | None = None,
    summary_model: ChatModel | None = None,
    flush: PrefixHook | None = None,
    windows: Mapping[str, int] = CTXLAB_WINDOWS,
) -> DshEngine: ...


@overload
def make_engine(
    config: EngineConfig,
    model: ChatModel,
    *,
    history: History | None = None,
    summary_model: ChatModel | None = None,
    flush: PrefixHook | None = None,
    windows: Mapping[str, int] = CTXLAB_WINDOWS,
) -> CompactionEngine: ...


def make_engine(
    config: EngineConfig,
    model: ChatModel,
    *,
    history: History | None = None,
    summary_model: ChatModel | None = None,
    flush: PrefixHook | None = None,
    windows: Mapping[str, int] = CTXLAB_WINDOWS,
) -> CompactionEngine:
    """The engine ``config`` names, for an agent talking to ``model`` over ``history``.

    ``model`` sizes the context window (dynamic thresholds) and writes the summaries unless
    ``summary_model`` is given; ``flush`` is the memory flush before a compaction
    (AgentScope only); ``history`` is required by DSH (an event-log history). Impossible
    combinations raise :class:`ConfigError`."""
    if isinstance(config, DshConfig):
        return _dsh_engine(config, summary_model or model, history, flush)
    if isinstance(config, CompactionConfig):
        thresholds = resolve_thresholds(config, model.model_name, windows)
        compactor = Compactor(config, thresholds, summary_model or model)
        return AgentScopeEngine(compactor, flush=flush)
    raise ConfigError(
        f"compaction must be a CompactionConfig (AgentScope) or a DshConfig (DeepSeek-Harness), "
        f"not {type(config).__name__}."
    )


def flushes(config: EngineConfig) -> bool:
    """Whether ``config``'s engine runs a memory flush before it compacts: AgentScope's when
    ``flush_before_compact`` is on; DeepSeek-Harness's never."""
    return isinstance(config, CompactionConfig) and config.flush_before_compact


def _dsh_engine(
    config: DshConfig, model: ChatModel, history: History | None, flush: PrefixHook | None
) -> DshEngine:
    if not isinstance(history, EventLogHistory):
        raise ConfigError(
            "The DSH engine keeps its compactions in the event log; use store='eventlog' "
            "(or history=EventLogHistory(log) with Agent)."
        )
    if flush is not None:
        raise ConfigError(
            "The DSH engine has no memory flush before compaction (DeepSeek-Harness never "
            "flushes); pass flush=None, or use a CompactionConfig."
        )
    return DshEngine(history.log, model, config)
