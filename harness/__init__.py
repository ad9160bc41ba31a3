"""ctxlab's agent harness: a tool-using agent loop whose context window is managed by history
compaction (AgentScope 2.0.3's or DeepSeek-Harness's engine) and file-based memory.

The names below are the public surface; everything else is reached through its module
(``harness.compaction.agentscope``, ``harness.store.eventlog``, ``harness.memory`` …). They are
imported on first use, so ``import harness`` stays cheap (no httpx, no engine) and cannot
form an import cycle with the modules it names::

    from harness import Agent, CompactionConfig, make_engine, ScriptedModel

    model = ScriptedModel(["hello"])
    agent = Agent(model, "Be brief.", engine=make_engine(CompactionConfig(), model))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.agent import Agent
    from harness.client import ChatClient
    from harness.compaction.agentscope import CompactionConfig
    from harness.compaction.dsh import DshConfig
    from harness.compaction.engine import CompactionEngine
    from harness.compaction.factory import make_engine
    from harness.errors import (
        AgentError,
        CompactionError,
        ConfigError,
        ContextLengthExceededError,
        CtxlabError,
        ModelError,
        StepLimitExceededError,
    )
    from harness.harness_agent import HarnessAgent
    from harness.memory.runtime import MemoryConfig
    from harness.messages import Message, ToolCall
    from harness.results import CallResult, RequestRecord
    from harness.testing import FunctionModel, ScriptedModel, Step
    from harness.tools import Tool

_SOURCES = {
    "Agent": "harness.agent",
    "HarnessAgent": "harness.harness_agent",
    "ChatClient": "harness.client",
    "CompactionConfig": "harness.compaction.agentscope",
    "DshConfig": "harness.compaction.dsh",
    "CompactionEngine": "harness.compaction.engine",
    "make_engine": "harness.compaction.factory",
    "AgentError": "harness.errors",
    "CompactionError": "harness.errors",
    "ConfigError": "harness.errors",
    "ContextLengthExceededError": "harness.errors",
    "CtxlabError": "harness.errors",
    "ModelError": "harness.errors",
    "StepLimitExceededError": "harness.errors",
    "MemoryConfig": "harness.memory.runtime",
    "Message": "harness.messages",
    "ToolCall": "harness.messages",
    "CallResult": "harness.results",
    "RequestRecord": "harness.results",
    "FunctionModel": "harness.testing",
    "ScriptedModel": "harness.testing",
    "Step": "harness.testing",
    "Tool": "harness.tools",
}

__all__ = [
    "Agent",
    "AgentError",
    "CallResult",
    "ChatClient",
    "CompactionConfig",
    "CompactionEngine",
    "CompactionError",
    "ConfigError",
    "ContextLengthExceededError",
    "CtxlabError",
    "DshConfig",
    "FunctionModel",
    "HarnessAgent",
    "MemoryConfig",
    "Message",
    "ModelError",
    "RequestRecord",
    "ScriptedModel",
    "Step",
    "StepLimitExceededError",
    "Tool",
    "ToolCall",
    "make_engine",
]


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
