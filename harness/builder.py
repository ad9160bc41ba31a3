"""``HarnessAgent``: an agent with compaction and the memory pipeline wired together.

The switches are AgentScope's: ``disable_memory_hooks`` stops the flush and maintenance,
``disable_memory_tools`` removes the memory tools, and ``disable_compaction`` removes
compaction together with the overflow retry. State, transcripts, memory files and offloaded tool
results all live under ``<workspace_root>/<user_id>/``. User and session ids are single path
components (``../../x`` is refused with a ConfigError), and the session folders must be real
folders inside the workspace (a symlink is refused with a PathEscapeError).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from harness.agent import Agent, CallResult
from harness.compaction.agentscope import CompactionConfig, ctxlab_profile
from harness.compaction.dsh import DshConfig
from harness.errors import ConfigError, PathEscapeError
from harness.memory.clock import Clock, format_instant
from harness.memory.consolidation import ConsolidationOutcome, MaintenanceSchedule
from harness.memory.runtime import MemoryConfig, MemoryRuntime
from harness.memory.workspace import MemoryWorkspace
from harness.model import ChatModel
from harness.safe_paths import check_name
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.history import History, StateHistory
from harness.store.statefile import JsonStateStore, Transcript
from harness.tokens import CTXLAB_WINDOWS
from harness.tools import Tool

__all__ = ["HarnessAgent"]


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
        compaction: CompactionConfig | DshConfig | None = None,
        memory: MemoryConfig | None = None,
        disable_compaction: bool = False,
        disable_memory_hooks: bool = False,
        disable_memory_tools: bool = False,
        summary_model: ChatModel | None = None,
        memory_model: ChatModel | None = None,
        clock: Clock | None = None,
        schedule: MaintenanceSchedule | None = None,
        windows: Mapping[str, int] = CTXLAB_WINDOWS,
        max_steps: int = 20,
        request_options: Mapping[str, Any] | None = None,
        store: Literal["state", "eventlog"] = "state",
    ) -> None:
        check_name("session id", session_id)  # before any path is built from it
        self.workspace = MemoryWorkspace(workspace_root, user_id, clock)
        transcript_clock = lambda: format_instant(self.workspace.clock())  # noqa: E731
        self.memory = MemoryRuntime(
            self.workspace,
            memory_model or model,
            memory,
            hooks_enabled=not disable_memory_hooks,
            tools_enabled=not disable_memory_tools,
            schedule=schedule,
        )
        self.agent = Agent(
            model,
            system_prompt,
            tools=[*tools, *self.memory.tools()],
            compaction=None if disable_compaction else (compaction or ctxlab_profile()),
            summary_model=summary_model,
            hooks=[self.memory],
            session_id=session_id,
            history=self._resumed(self._history(store, session_id, transcript_clock)),
            workspace=self.workspace.base,
            flush_prefix=self.memory.flush_prefix,
            windows=windows,
            max_steps=max_steps,
            request_options=request_options,
        )

    @staticmethod
    def _resumed(history: EventLogHistory | StateHistory) -> History:
        """A resumed session's tool calls that a crash left without results are closed with
        synthetic "interrupted" results (see :mod:`harness.interrupted`)."""
        history.close_interrupted_calls()
        return history

    def _history(
        self, store: str, session_id: str, clock: Callable[[], str]
    ) -> EventLogHistory | StateHistory:
        fs = self.workspace.fs
        for folder in ("events", "state", "sessions"):
            if fs.kind(folder) not in (None, "dir"):
                raise PathEscapeError(f"{fs.base / folder} is not a folder inside the workspace")
        for name in (  # the session's own files: a planted symlink is never opened
            f"events/{session_id}.jsonl",
            f"state/{session_id}.json",
            f"state/{session_id}.journal.jsonl",
            f"sessions/{session_id}.jsonl",
        ):
            if fs.kind(name) not in (None, "file"):
                raise PathEscapeError(f"{fs.base / name} is not a file inside the workspace")
        fs.remove_temps("state", prefix=f".{session_id}.json.")  # left by a crashed save
        if store == "eventlog":
            path = self.workspace.base / "events" / f"{session_id}.jsonl"
            log = EventLog.open(path, clock) if path.exists() else EventLog(path, clock)
            return EventLogHistory(log)
        if store != "state":
            raise ConfigError(f"unknown session store {store!r}; use 'state' or 'eventlog'")
        return StateHistory(
            session_id,
            JsonStateStore(self.workspace.base / "state"),
            Transcript(self.workspace.sessions_dir / f"{session_id}.jsonl", clock=clock),
        )

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
