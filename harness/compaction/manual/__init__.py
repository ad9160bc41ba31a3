"""Manual compaction of a saved session, with the rails the article asks for.

1. **State safety** — only when idle: no agent call and no other ``ctxlab compact`` holds the
   session (the one writer lock ``locks/<session>.lock``, which names its holder,
   :mod:`harness.store.session_lock` through :mod:`harness.compaction.manual.lock`; a lock
   whose holder died is taken over and the broken lock audited), for an event log no live
   ``compaction/start``, and no tool call waiting for its result.
2. **Undo** — :meth:`ManualCompaction.undo` undoes this session's **last committed** compaction
   and keeps every turn added since (:mod:`harness.compaction.manual.undo`): on an event log by
   appending events that bring the shadowed originals back, on a state-file session from the
   snapshot
   the committed attempt's audit line names (a failed or killed attempt names none).
3. **Audit** — every attempt gets a ``started`` line before anything else (so even a killed one
   is on record) and an outcome line; every undo and every broken lock too. Each line says who
   (user, host, pid), when, engine, trigger, cutoff, summary length, messages before and after.

Failures are one :class:`ManualCompactionError` whose ``code`` says what happened: ``missing``,
``busy``, ``damaged``, ``changed``, ``summary``, ``commit``, ``no-snapshot``, ``persistence``
or ``cancelled`` (see :class:`~harness.errors.ManualCompactionError`). Both engines work on an
event-log session (``events/<session>.jsonl``); the AgentScope engine also on a state-file
session (``state/<session>.json`` and its journal).
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any, assert_never, get_args

from harness.compaction.agentscope import CompactionConfig, Compactor, resolve_thresholds
from harness.compaction.agentscope.summary import DEFAULT_SUMMARY_PROMPT
from harness.compaction.dsh import DshConfig, DshEngine
from harness.compaction.manual.audit import AuditRecord, read_audit
from harness.compaction.manual.lock import session_lock, who
from harness.compaction.manual.undo import digest, restore_state, take_snapshot, undo_on_log
from harness.compaction.record import EngineName
from harness.errors import (
    CommitError,
    CompactionBusyError,
    ConfigError,
    CtxlabError,
    EventLogError,
    LogCorruptError,
    ManualCompactionError,
    NothingToUndoError,
    PairingError,
    PathEscapeError,
    StateStoreError,
    SummaryError,
    SurfaceChangedError,
    UnbalancedSurfaceError,
)
from harness.fs.path import WorkspacePath
from harness.fs.root import SafeRoot, check_name
from harness.messages import Message, validate_pairing
from harness.model import ChatModel
from harness.secrets import redact_for_storage
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.eventlog.bracket import refuse_if_busy
from harness.store.history import History
from harness.store.sessions import open_saved
from harness.store.statefile import JsonStateStore, utc_now
from harness.validation import count

__all__ = ["AuditRecord", "ManualCompaction"]

Engine = EngineName


class ManualCompaction:
    """Compacts one saved session on request, with a snapshot, an audit line and a lock."""

    def __init__(
        self,
        base: Path,
        session_id: str,
        model: ChatModel,
        keep_messages: int = 2,
        events_name: str | None = None,
    ):
        self.base = Path(base)
        self.session_id = check_name("session id", session_id)  # never a path (../../x)
        self.model = model
        self.keep_messages = count("keep_messages", keep_messages)  # refused here, by its name
        self.fs = SafeRoot(self.base)  # every session file is opened without following a link
        self.events_name = events_name
        """A session file in ``base`` itself (``ctxlab compact --file``: a DeepSeek-Harness
        ``session.jsonl``), instead of ``events/<session>.jsonl``."""
        self.events_file = self.base / (events_name or f"events/{session_id}.jsonl")
        self.state_store = JsonStateStore(WorkspacePath(self.fs, "state"))
        self.state_file = self.state_store.path(session_id)
        self.snapshots = WorkspacePath(self.fs, "snapshots")  # never through a symlink
        self.audit_file = WorkspacePath(self.fs, "audit.jsonl")
        self.lock_file = WorkspacePath(self.fs, f"locks/{session_id}.lock")

    def compact(self, engine: Engine = "agentscope", instructions: str = "") -> AuditRecord:
        """Compact now; raises :class:`ManualCompactionError` (after auditing it) on failure,
        ConfigError (before anything is done) for an unknown engine."""
        if engine not in get_args(EngineName):
            raise ConfigError(f"engine must be agentscope or dsh, not {engine!r}")
        attempt = uuid.uuid4().hex
        with self._locked(engine, "compact", instructions, attempt):
            self._audit(self._record(engine, "compact", "started", attempt, instructions))
            self._drop_orphan_snapshots()
            history = self._history(engine)
            before = history.messages()
            self._require_idle(history, before)
            snapshot = self._snapshot(history, attempt)
            try:
                cutoff, summary = self._run(engine, history, instructions)
            except BaseException:
                if snapshot is not None:
                    _discard(snapshot)  # a failed attempt leaves nothing to undo
                raise
            after = history.messages()
            if not cutoff and snapshot is not None:
                _discard(snapshot)
                snapshot = None
            return self._audit(
                self._record(
                    engine,
                    "compact",
                    "compacted" if cutoff else "nothing to compact",
                    attempt,
                    instructions,
                    cutoff=cutoff,
                    summary_chars=len(summary) if summary is not None else None,
                    messages_before=len(before),
                    messages_after=len(after),
                    snapshot=str(snapshot) if snapshot else None,
                    after_digest=digest(after) if snapshot else None,
                )
            )

    def undo(self) -> AuditRecord:
        """Undo this session's last committed compaction, keeping every later turn; refuses
        (changing nothing) when that is impossible."""
        attempt = uuid.uuid4().hex
        with self._locked("snapshot", "undo", "", attempt):
            history = self._saved()
            if isinstance(history, EventLogHistory):
                undone, restored = undo_on_log(history.log, self.session_id)
                source: str | None = f"{self.events_file} (compaction {undone})"
            else:
                undone, restored, source = self._undo_state()
            return self._audit(
                self._record(
                    "snapshot",
                    "undo",
                    "restored",
                    attempt,
                    "",
                    snapshot=source,
                    undone=undone,
                    messages_after=restored,
                )
            )

    def _saved(self) -> EventLogHistory | History | None:
        """The saved session: :attr:`events_name`'s log, else the one place a store is picked."""
        if self.events_name is None:
            return open_saved(self.fs, self.session_id)
        return EventLogHistory(EventLog.open(WorkspacePath(self.fs, self.events_name)))

    def audit_log(self) -> list[dict[str, Any]]:
        """The audit's lines (:func:`~harness.compaction.manual.audit.read_audit`)."""
        return read_audit(self.audit_file)

    def _undo_state(self) -> tuple[str, int, str]:
        record = self._last_committed_state()
        if record is None:
            raise NothingToUndoError(self.session_id)
        snapshot = self._named_snapshot(str(record["snapshot"]))
        if snapshot is None or not snapshot.exists():
            raise ManualCompactionError(
                "no-snapshot", f"the snapshot {record['snapshot']} is missing"
            )
        state = self.state_store.load(self.session_id)
        state.context = restore_state(snapshot, self.session_id, record, state.context)
        self.state_store.save(state)
        snapshot.unlink()
        return str(record["attempt"]), len(state.context), str(snapshot)

    def _last_committed_state(self) -> dict[str, Any] | None:
        """The audit line of this session's last committed compaction, unless undone."""
        for line in reversed(self.audit_log()):
            if line.get("session") != self.session_id:
                continue
            if line.get("action") == "undo" and line.get("outcome") == "restored":
                return None
            if line.get("action") == "compact" and line.get("outcome") == "compacted":
                return line if line.get("snapshot") else None
        return None

    def _named_snapshot(self, named: str) -> WorkspacePath | None:
        """The snapshot an audit line names (its absolute path), inside ``snapshots/``; None
        when the line names a file elsewhere."""
        try:
            relative = Path(named).relative_to(self.snapshots.path)
        except ValueError:
            return None
        return self.snapshots / relative.as_posix()

    def _drop_orphan_snapshots(self) -> None:
        """Delete snapshots no committed compaction names (left by a killed attempt)."""
        named = {
            line.get("snapshot")
            for line in self.audit_log()
            if line.get("session") == self.session_id and line.get("outcome") == "compacted"
        }
        for relative in self.fs.files(f"snapshots/{self.session_id}"):  # no symlink followed
            path = WorkspacePath(self.fs, relative)
            if relative.endswith(".json") and str(path) not in named:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()

    def _history(self, engine: Engine) -> History:
        history = self._saved()
        if isinstance(history, EventLogHistory):
            return history
        if engine == "dsh":
            raise ManualCompactionError(
                "missing", f"the DSH engine needs an event-log session (no {self.events_file})"
            )
        if history is None:
            raise ManualCompactionError(
                "missing", f"no saved session {self.session_id!r} in {self.base}"
            )
        return history

    def _require_idle(self, history: History, messages: list[Message]) -> None:
        try:
            if isinstance(history, EventLogHistory):
                refuse_if_busy(history.log)
            validate_pairing(messages)
        except CompactionBusyError as exc:
            raise ManualCompactionError("busy", str(exc)) from exc
        except PairingError as exc:
            raise ManualCompactionError("busy", f"the session is not consistent: {exc}") from exc
        if messages and messages[-1].tool_calls:
            raise ManualCompactionError("busy", "a tool call is still waiting for its result")

    def _snapshot(self, history: History, attempt: str) -> WorkspacePath | None:
        """State-file sessions: the context before compacting (an event log keeps it)."""
        if isinstance(history, EventLogHistory):
            return None
        try:
            return take_snapshot(self.snapshots, self.session_id, attempt, history.messages())
        except (OSError, PathEscapeError) as exc:  # a full disk, or snapshots/ is a symlink
            raise ManualCompactionError(
                "persistence", f"could not take the snapshot: {exc}"
            ) from exc

    def _run(self, engine: Engine, history: History, instructions: str) -> tuple[int, str | None]:
        try:
            if engine == "dsh":
                return self._run_dsh(history, instructions)
            if engine == "agentscope":
                return self._run_agentscope(history, instructions)
            assert_never(engine)
        except ManualCompactionError:
            raise
        except _DAMAGED as exc:
            raise _damaged(exc) from exc
        except (CompactionBusyError, UnbalancedSurfaceError) as exc:
            raise ManualCompactionError("busy", str(exc)) from exc
        except SurfaceChangedError as exc:
            raise ManualCompactionError("changed", str(exc)) from exc
        except SummaryError as exc:
            raise ManualCompactionError("summary", str(exc)) from exc
        except (CommitError, EventLogError) as exc:
            raise ManualCompactionError(
                "commit", f"{exc}; inspect the session before retrying"
            ) from exc
        except OSError as exc:
            raise ManualCompactionError("persistence", str(exc)) from exc

    def _run_agentscope(self, history: History, instructions: str) -> tuple[int, str | None]:
        prompt = DEFAULT_SUMMARY_PROMPT
        if instructions.strip():
            prompt = prompt.replace("<messages>", f"Also: {instructions.strip()}\n\n<messages>")
        config = CompactionConfig(
            trigger_messages=self.keep_messages + 1,
            trigger_tokens=None,
            keep_messages=self.keep_messages,
            keep_tokens=0,
            prune=None,
            flush_before_compact=False,
            offload_before_compact=False,
            summary_prompt=prompt,
            summary_policy="fail-closed",  # manual compaction never commits a placeholder
        )
        thresholds = resolve_thresholds(config, self.model.model_name)
        compaction = Compactor(config, thresholds, self.model).force(history.messages())
        if compaction is None:
            return 0, None
        history.apply_compaction(compaction)
        return compaction.event.cut, compaction.event.summary

    def _run_dsh(self, history: History, instructions: str) -> tuple[int, str | None]:
        assert isinstance(history, EventLogHistory)
        header = history.latest_header()
        engine = DshEngine(history.log, self.model, DshConfig())
        result = engine.compact_now(header, instructions)
        if result is None:
            return 0, None
        return result.event.cut, result.event.summary

    def _record(
        self, engine: str, action: str, outcome: str, attempt: str, instructions: str, **fields: Any
    ) -> AuditRecord:
        return AuditRecord(
            utc_now(),
            self.session_id,
            engine,
            action,
            outcome,
            instructions=instructions,
            attempt=attempt,
            **who(),
            **fields,
        )

    def _audit(self, record: AuditRecord) -> AuditRecord:
        # the user's instructions and an error's text are free text: a key pasted into
        # --instructions must not stay on disk (the secret scanner redacts it, logging where)
        line = asdict(record)
        for name in ("instructions", "error"):
            if line[name]:
                line[name] = redact_for_storage(line[name], f"{self.audit_file} ({name})")
        try:
            self.audit_file.append(json.dumps(line, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise ManualCompactionError("persistence", f"could not write the audit: {exc}") from exc
        return record

    @contextlib.contextmanager
    def _locked(self, engine: str, action: str, instructions: str, attempt: str) -> Iterator[None]:
        """Hold the session lock; audit a broken lock, and every failure with its code."""
        try:
            with session_lock(self.lock_file, action) as previous:
                if previous is not None:
                    self._audit(
                        self._record(engine, "lock", "broken", attempt, "", holder=previous)
                    )
                yield
        except BaseException as exc:
            error = _as_manual_error(exc)
            self._audit(
                self._record(engine, action, error.code, attempt, instructions, error=str(error))
            )
            if error is exc:
                raise
            raise error from exc


_DAMAGED = (LogCorruptError, StateStoreError)
"""A saved file that cannot be read: ``damaged``, never ``busy`` (which says another process
holds the session, and waiting would not help here)."""


def _damaged(exc: BaseException) -> ManualCompactionError:
    return ManualCompactionError("damaged", f"{exc}; nothing was changed")


def _as_manual_error(exc: BaseException) -> ManualCompactionError:
    """Every failure as a ManualCompactionError: an interrupt (Ctrl-C, SIGTERM) is
    ``cancelled``, a saved file that cannot be read ``damaged``, other bad input ``busy``
    (nothing was done), an unexpected error ``commit``."""
    if isinstance(exc, ManualCompactionError):
        return exc
    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
        return ManualCompactionError("cancelled", "manual compaction was cancelled")
    if isinstance(exc, _DAMAGED):
        return _damaged(exc)
    if isinstance(exc, CtxlabError):
        return ManualCompactionError("busy", str(exc))
    return ManualCompactionError("commit", f"{type(exc).__name__}: {exc}")


def _discard(snapshot: WorkspacePath) -> None:
    with contextlib.suppress(FileNotFoundError):
        snapshot.unlink()
