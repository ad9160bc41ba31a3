"""Compaction engines as the agent loop sees them: a check before every model request, and a
recovery step after a context-length error.

* :class:`AgentScopeEngine` — AgentScope 2.0.3's semantics (:mod:`harness.compaction`) over any
  :class:`harness.history.History`;
* :class:`DshAgentEngine` — DeepSeek-Harness's (:mod:`harness.dsh`), which needs the event-log
  history because a compaction is a transaction on the log.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Protocol

from harness.compaction import CompactionEvent, Compactor
from harness.dsh.engine import DshEngine
from harness.errors import CompactionError
from harness.history import History
from harness.model import ChatRequest

__all__ = ["AgentScopeEngine", "CompactionEngine", "DshAgentEngine", "request_header"]

logger = logging.getLogger("harness.dsh")


class CompactionEngine(Protocol):
    """What the agent asks of a compaction engine."""

    def before_request(self, history: History, request: ChatRequest) -> list[CompactionEvent]:
        """Compact if needed before ``request`` (built from the current history) is sent."""
        ...

    def on_overflow(self, history: History, request: ChatRequest) -> list[CompactionEvent]:
        """Compact after the server said ``request`` was too long; [] means no progress."""
        ...

    @property
    def max_overflow_retries(self) -> int:
        """How many overflow retries are allowed before the count starts again."""
        ...

    @property
    def overflow_retries_reset_on_reply(self) -> bool:
        """True when the count starts again once an assistant message lands (dsh); False when
        it holds for the whole call (AgentScope's one retry per execution)."""
        ...


def request_header(history: History, request: ChatRequest) -> ChatRequest:
    """``request`` without its history: system prompt, reference material and tools."""
    head = len(request.messages) - len(history.messages())
    return replace(request, messages=request.messages[:head])


class AgentScopeEngine:
    """Runs a :class:`Compactor` and applies its result to the history."""

    max_overflow_retries = 1
    overflow_retries_reset_on_reply = False

    def __init__(self, compactor: Compactor) -> None:
        self.compactor = compactor

    def before_request(self, history: History, request: ChatRequest) -> list[CompactionEvent]:
        compaction = self.compactor.compact_if_needed(history.messages())
        if compaction is None:
            return []
        history.apply_compaction(compaction)
        return [compaction.event]

    def on_overflow(self, history: History, request: ChatRequest) -> list[CompactionEvent]:
        compaction = self.compactor.force(history.messages())
        if compaction is None:
            return []
        history.apply_compaction(compaction)
        return [compaction.event]


class DshAgentEngine:
    """Runs a :class:`DshEngine` on the event log behind the agent's history."""

    overflow_retries_reset_on_reply = True

    def __init__(self, engine: DshEngine) -> None:
        self.engine = engine

    @property
    def max_overflow_retries(self) -> int:
        return self.engine.config.max_overflow_retries

    def before_request(self, history: History, request: ChatRequest) -> list[CompactionEvent]:
        # As dsh's pre-step listener: a failed pressure compaction is logged and the turn goes
        # on (the request may then overflow, and overflow recovery gets its chance).
        return self.engine.compact_if_needed(request_header(history, request))

    def on_overflow(self, history: History, request: ChatRequest) -> list[CompactionEvent]:
        # A recovery that fails before any progress leaves the provider's error to the caller.
        try:
            return self.engine.recover_overflow(request_header(history, request))
        except CompactionError as exc:
            logger.warning("Overflow recovery failed: %s", exc)
            return []
