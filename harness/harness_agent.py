"""``HarnessAgent``: an agent with compaction and the memory pipeline wired together.

The switches are AgentScope's: ``disable_memory_hooks`` stops the flush and maintenance,
``disable_memory_tools`` removes the memory tools, and ``disable_compaction`` removes
compaction together with the overflow retry. ``compaction`` names the engine and its settings
(``ctxlab_profile()`` unless given); it is never None: ``disable_compaction=True`` is the one
way to turn compaction off. A :class:`~harness.compaction.dsh.DshConfig` needs
``store="eventlog"`` (``log_format="dsh"``: in DeepSeek-Harness's own session-file format,
``docs/dsh-sessions.md``), and compacts without the memory flush before compaction (DeepSeek-Harness
has none; the flush after each call still runs). State, transcripts, memory files and offloaded tool
results all live under ``<workspace_root>/<user_id>/``. User and session ids are single path
components (``../../x`` is refused with a ConfigError), and the session folders must be real
folders inside the workspace (a symlink is refused with a PathEscapeError).

One writer per session: :meth:`HarnessAgent.call` holds the session lock
(``locks/<session>.lock``, :mod:`harness.store.session_lock`) for its whole turn, the lock
manual compaction and undo hold too. Holding it, the call first reads what another writer
saved since (:meth:`catch_up` of the store) and closes the tool calls a crashed writer left
open; a second caller waits up to ``busy_timeout`` seconds, then gets
:class:`~harness.errors.SessionBusyError` with nothing written. Reading (``agent.context``,
``session_search``) never takes the lock.

``durability`` says when the session's appends reach the disk (:mod:`harness.store.durability`:
``per-event``, ``per-turn``, the default, or ``os``); a killed process loses nothing in any of
them, they differ in what a power cut can lose. ``durable_user_message`` commits the user
message before the model is called.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, TypedDict, Unpack

from harness.agent import Agent
from harness.compaction.agentscope import ctxlab_profile
from harness.compaction.engine import CompactionEngine
from harness.compaction.factory import EngineConfig, flushes, make_engine
from harness.disk_errors import on_disk
from harness.errors import ConfigError, SessionBusyError
from harness.fs.path import WorkspacePath
from harness.fs.root import check_name
from harness.memory.clock import NanoClock, format_instant
from harness.memory.consolidation import ConsolidationOutcome, MaintenanceSchedule
from harness.memory.runtime import MemoryConfig, MemoryRuntime
from harness.memory.workspace import MemoryWorkspace
from harness.meter.windows import CTXLAB_WINDOWS
from harness.model import ChatModel, provider_of
from harness.results import CallResult
from harness.store.durability import DEFAULT_DURABILITY, Durability, check_durability
from harness.store.eventlog import EventLogHistory
from harness.store.eventlog.codec import LogFormat
from harness.store.eventlog.dsh_format import DshCodec
from harness.store.history import StateHistory
from harness.store.session_lock import session_lock
from harness.store.sessions import open_history
from harness.tools import Tool

__all__ = ["DEFAULT_BUSY_TIMEOUT", "DEFAULT_COMPACTION", "HarnessAgent", "SessionOptions"]

DEFAULT_BUSY_TIMEOUT = 60.0
"""Seconds a call waits for another writer of its session before SessionBusyError."""


class SessionOptions(TypedDict, total=False):
    """How a :class:`HarnessAgent` keeps its session: keyword arguments of its own, each
    optional (an unknown one is a TypeError, as for any keyword)."""

    store: Literal["state", "eventlog"]
    """``state`` (checkpoint + journal + transcript, the default) or ``eventlog``."""
    log_format: LogFormat | None
    """Event logs: ``"dsh"`` writes DeepSeek-Harness's session file; None keeps a resumed
    file's format (ctxlab's for a new one)."""
    durability: Durability
    """When appends reach the disk (:mod:`harness.store.durability`; ``per-turn`` default)."""
    durable_user_message: bool
    """Commit the user message before the model is called (default False)."""
    busy_timeout: float
    """Seconds a call waits for another writer (:data:`DEFAULT_BUSY_TIMEOUT`)."""


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
        max_tool_calls_per_reply: int | None = None,
        request_options: Mapping[str, Any] | None = None,
        **session: Unpack[SessionOptions],
    ) -> None:
        check_name("session id", session_id)  # before any path is built from it
        with on_disk(Path(workspace_root) / user_id, "set up the workspace in"):  # StorageError
            self.workspace = MemoryWorkspace(workspace_root, user_id, clock)
            self.memory = MemoryRuntime(
                self.workspace, memory_model or model, memory, schedule=schedule,
                hooks_enabled=not disable_memory_hooks, tools_enabled=not disable_memory_tools,
            )  # fmt: skip
            self.history = self._open_session(session_id, model, session)
            engine = self._engine(compaction, model, summary_model, windows, disable_compaction)
            self.agent = Agent(
                model, system_prompt, [*tools, *self.memory.tools()], engine, hooks=[self.memory],
                history=self.history, workspace=self.workspace.base, max_steps=max_steps,
                max_tool_calls_per_reply=max_tool_calls_per_reply, request_options=request_options,
                durable_user_message=session.get("durable_user_message", False),
            )  # fmt: skip

    def _engine(
        self,
        config: EngineConfig,
        model: ChatModel,
        summary_model: ChatModel | None,
        windows: Mapping[str, int],
        off: bool,
    ) -> CompactionEngine | None:
        """The session's compaction engine over :attr:`history`; None when ``off``
        (``disable_compaction=True``)."""
        if off:
            return None
        if config is None:  # a caller without type checks
            raise ConfigError(
                "compaction=None is not a setting: leave compaction out for AgentScope's "
                "defaults, or pass disable_compaction=True to turn compaction off."
            )
        flush = self.memory.flush_prefix if flushes(config) else None
        return make_engine(
            config,
            model,
            history=self.history,
            summary_model=summary_model,
            flush=flush,
            windows=windows,
        )

    def _open_session(
        self, session_id: str, model: ChatModel, options: SessionOptions
    ) -> EventLogHistory | StateHistory:
        """The session's writer lock, then its history, resumed under that lock."""
        unknown = sorted(set(options) - set(SessionOptions.__annotations__))
        if unknown:  # what Python says of an unknown keyword, since **session takes any
            raise TypeError(f"HarnessAgent() got an unexpected keyword argument {unknown[0]!r}")
        self.busy_timeout = options.get("busy_timeout", DEFAULT_BUSY_TIMEOUT)
        self.session_lock = self._lock_of(session_id)
        return self._resumed(self._history(session_id, model, options))

    def _lock_of(self, session_id: str) -> WorkspacePath:
        """The session's writer lock (:mod:`harness.store.session_lock`)."""
        return WorkspacePath(self.workspace.fs, f"locks/{session_id}.lock")

    def _resumed(self, history: EventLogHistory | StateHistory) -> EventLogHistory | StateHistory:
        """A resumed session's tool calls that a crash left without results are closed with
        synthetic "interrupted" results (see :mod:`harness.replies`), now if the session
        is free; while another writer holds it (its tool may still be running) the first call
        does it, holding the lock."""
        try:
            with session_lock(self.session_lock, "resume", timeout=0):
                history.catch_up()  # the history was read unlocked: a writer may have finished
                history.close_interrupted_calls()
                history.commit()
        except (SessionBusyError, OSError):  # busy, or a read-only workspace: the call will say
            pass
        return history

    def _history(
        self, session_id: str, model: ChatModel, options: SessionOptions
    ) -> EventLogHistory | StateHistory:
        clock = lambda: format_instant(self.workspace.clock())  # noqa: E731  # transcript stamps
        durability = check_durability(options.get("durability", DEFAULT_DURABILITY))
        history = open_history(
            self.workspace.fs, session_id, options.get("store", "state"), clock,
            options.get("log_format"), durability,
        )  # fmt: skip  # refuses symlinks
        if isinstance(history, EventLogHistory) and isinstance(history.log.codec, DshCodec):
            history.log.codec.provider = provider_of(model)  # what dsh's sources name
            history.log.codec.model = model.model_name
        return history

    def call(self, user_text: str) -> CallResult:
        """One call of the agent, holding the session for the whole turn; flush and
        maintenance follow in the background. SessionBusyError (nothing written) when another
        writer held the session for longer than ``busy_timeout`` seconds; a full disk or a
        read-only mount is a :class:`~harness.errors.StorageError` naming the file."""
        with (
            on_disk(self.workspace.base, "write a file in"),
            session_lock(self.session_lock, "call", self.busy_timeout),
        ):
            self.history.catch_up()  # what another writer saved since
            self.history.close_interrupted_calls()  # left open by a writer that died
            return self.agent.call(user_text)

    def await_quiescence(self, timeout: float = 60.0) -> bool:
        """Wait for the background memory work of earlier calls."""
        return self.memory.await_quiescence(timeout)

    def consolidate_now(self) -> ConsolidationOutcome:
        return self.memory.consolidate_now()

    def close(self) -> None:
        self.await_quiescence()
        self.memory.close()
