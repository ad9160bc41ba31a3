"""``HarnessAgent``: an agent with compaction and the memory pipeline wired together.

The switches are AgentScope's: ``disable_memory_hooks`` stops the flush and maintenance,
``disable_memory_tools`` removes the memory tools, and ``disable_compaction`` removes
compaction together with the overflow retry. ``compaction`` names the engine and its settings
(AgentScope's defaults unless given); it is never None: ``disable_compaction=True`` is the one
way to turn compaction off. A :class:`~harness.compaction.dsh.DshConfig` needs
``store="eventlog"``, and compacts without the memory flush before compaction (DeepSeek-Harness
has none; the flush after each call still runs). State, transcripts, memory files and offloaded tool
results all live under ``<workspace_root>/<user_id>/``. User and session ids are single path
components (``../../x`` is refused with a ConfigError), and the session folders must be real
folders inside the workspace (a symlink is refused with a PathEscapeError).

``durability`` says when the session's appends reach the disk (:mod:`harness.store.durability`:
``per-event``, ``per-turn``, the default, or ``os``); a killed process loses nothing in any of
them, they differ in what a power cut can lose. ``durable_user_message`` commits the user
message before the model is called.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from harness.agent import Agent
from harness.compaction.agentscope import ctxlab_profile
from harness.compaction.engine import CompactionEngine
from harness.compaction.factory import EngineConfig, flushes, make_engine
from harness.errors import ConfigError
from harness.memory.clock import NanoClock, format_instant
from harness.memory.consolidation import ConsolidationOutcome, MaintenanceSchedule
from harness.memory.runtime import MemoryConfig, MemoryRuntime
from harness.memory.workspace import MemoryWorkspace
from harness.model import ChatModel
from harness.results import CallResult
from harness.safe_paths import check_name
from harness.store.durability import DEFAULT_DURABILITY, Durability, check_durability
from harness.store.eventlog import EventLogHistory
from harness.store.history import History, StateHistory
from harness.store.sessions import open_history
from harness.tokens import CTXLAB_WINDOWS
from harness.tools import Tool

__all__ = ["DEFAULT_COMPACTION", "HarnessAgent"]

DEFAULT_COMPACTION = ctxlab_profile()
"""ctxlab's own profile: AgentScope 2.0.3's compaction with its defaults plus the
identifier-survival gate and the thrash guard (:func:`ctxlab_profile`); what ``HarnessAgent``
runs unless told. ``CompactionConfig()`` is the seed-faithful AgentScope profile."""


class HarnessAgent:
    """An :class:`Agent` plus its memory runtime, for one user and session."""

    def __init__(
        self,
        model: ChatModel,
        system_prompt: str = "",
        *,
        workspace_root: Path,
        user_id: str = "default",
        session_id: str = "default",
        tools: Iterable[Tool] = (),
        compaction: EngineConfig = DEFAULT_COMPACTION,
        memory: MemoryConfig | None = None,
        disable_compaction: bool = False,
        disable_memory_hooks: bool = False,
        disable_memory_tools: bool = False,
        summary_model: ChatModel | None = None,
        memory_model: ChatModel | None = None,
        clock: NanoClock | None = None,
        schedule: MaintenanceSchedule | None = None,
        windows: Mapping[str, int] = CTXLAB_WINDOWS,
        max_steps: int = 20,
        request_options: Mapping[str, Any] | None = None,
        store: Literal["state", "eventlog"] = "state",
        durability: Durability = DEFAULT_DURABILITY,
        durable_user_message: bool = False,
    ) -> None:
        check_name("session id", session_id)  # before any path is built from it
        self.workspace = MemoryWorkspace(workspace_root, user_id, clock)
        self.memory = MemoryRuntime(
            self.workspace, memory_model or model, memory, hooks_enabled=not disable_memory_hooks,
            tools_enabled=not disable_memory_tools, schedule=schedule,
        )  # fmt: skip
        history = self._resumed(self._history(store, session_id, check_durability(durability)))
        engine = None
        if not disable_compaction:
            engine = self._engine(compaction, model, history, summary_model, windows)
        self.agent = Agent(
            model, system_prompt, [*tools, *self.memory.tools()], engine, hooks=[self.memory],
            history=history, workspace=self.workspace.base, max_steps=max_steps,
            request_options=request_options, durable_user_message=durable_user_message,
        )  # fmt: skip

    def _engine(
        self,
        config: EngineConfig,
        model: ChatModel,
        history: History,
        summary_model: ChatModel | None,
        windows: Mapping[str, int],
    ) -> CompactionEngine:
        if config is None:  # a caller without type checks
            raise ConfigError(
                "compaction=None is not a setting: leave compaction out for AgentScope's "
                "defaults, or pass disable_compaction=True to turn compaction off."
            )
        flush = self.memory.flush_prefix if flushes(config) else None
        return make_engine(
            config,
            model,
            history=history,
            summary_model=summary_model,
            flush=flush,
            windows=windows,
        )

    @staticmethod
    def _resumed(history: EventLogHistory | StateHistory) -> History:
        """A resumed session's tool calls that a crash left without results are closed with
        synthetic "interrupted" results (see :mod:`harness.interrupted`)."""
        history.close_interrupted_calls()
        history.commit()
        return history

    def _history(
        self, store: str, session_id: str, durability: Durability
    ) -> EventLogHistory | StateHistory:
        clock = lambda: format_instant(self.workspace.clock())  # noqa: E731  # transcript stamps
        fs = self.workspace.fs
        return open_history(fs, session_id, store, clock, durability)  # refuses symlinks

    def call(self, user_text: str) -> CallResult:
        """One call of the agent; flush and maintenance follow in the background."""
        return self.agent.call(user_text)

    def await_quiescence(self, timeout: float = 60.0) -> bool:
        """Wait for the background memory work of earlier calls."""
        return self.memory.await_quiescence(timeout)

    def consolidate_now(self) -> ConsolidationOutcome:
        return self.memory.consolidate_now()

    def close(self) -> None:
        self.await_quiescence()
        self.memory.close()
