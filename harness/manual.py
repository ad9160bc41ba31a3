"""Manual compaction of a saved session, with the rails the article asks for.

1. **State safety** — only when idle: no other compaction holds the session (a lock file, and
   for an event log no live ``compaction/start``) and no tool call is waiting for its result.
2. **Undo** — a snapshot of the session's files is taken first; :meth:`ManualCompaction.undo`
   restores the latest one.
3. **Audit** — every attempt, and every undo, is a line in ``audit.jsonl``: when, engine,
   trigger, cutoff, summary length, messages before and after, the snapshot, the outcome.

Failures are one :class:`ManualCompactionError` whose ``code`` says what happened: ``busy``,
``changed``, ``summary``, ``commit``, ``persistence`` or ``cancelled``. Both engines work on an
event-log session (``events/<session>.jsonl``); the AgentScope engine also on a state-file
session (``state/<session>.json``).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from harness.compaction import CompactionConfig, Compactor, resolve_thresholds
from harness.compaction.summary import DEFAULT_SUMMARY_PROMPT, SUMMARY_UNAVAILABLE
from harness.dsh import DshConfig, DshEngine
from harness.errors import (
    CommitError,
    CompactionBusyError,
    EventLogError,
    ManualCompactionError,
    PairingError,
    SummaryError,
    SurfaceChangedError,
)
from harness.eventlog import EventLog, EventLogHistory
from harness.files import append_text, write_atomic
from harness.history import History, StateHistory
from harness.messages import Message, validate_pairing
from harness.model import ChatModel
from harness.safe_paths import check_name
from harness.state import JsonStateStore, Transcript, utc_now

__all__ = ["AuditRecord", "ManualCompaction"]

Engine = Literal["agentscope", "dsh"]


@dataclass(frozen=True)
class AuditRecord:
    """One line of ``audit.jsonl``."""

    at: str
    session: str
    engine: str
    action: str
    """``compact`` or ``undo``."""
    outcome: str
    """``compacted``, ``nothing to compact``, ``restored`` or an error code."""
    trigger: str = "manual"
    cutoff: int | None = None
    summary_chars: int | None = None
    messages_before: int | None = None
    messages_after: int | None = None
    snapshot: str | None = None
    instructions: str = ""
    error: str | None = None


class ManualCompaction:
    """Compacts one saved session on request, with a snapshot, an audit line and a lock."""

    def __init__(self, base: Path, session_id: str, model: ChatModel, keep_messages: int = 2):
        self.base = Path(base)
        self.session_id = check_name("session id", session_id)  # never a path (../../x)
        self.model = model
        self.keep_messages = keep_messages
        self.events_file = self.base / "events" / f"{session_id}.jsonl"
        self.state_file = self.base / "state" / f"{session_id}.json"
        self.snapshots = self.base / "snapshots"
        self.audit_file = self.base / "audit.jsonl"

    def compact(self, engine: Engine = "agentscope", instructions: str = "") -> AuditRecord:
        """Compact now; raises :class:`ManualCompactionError` (after auditing it) on failure."""
        with self._locked(engine, "compact", instructions):
            snapshot = self._snapshot()  # before opening: opening a log appends a resume marker
            try:
                history = self._history(engine)
                before = history.messages()
                self._require_idle(history, before)
            except ManualCompactionError:
                Path(snapshot).unlink(missing_ok=True)
                raise
            try:
                cutoff, summary = self._run(engine, history, instructions)
            except KeyboardInterrupt as exc:
                raise ManualCompactionError("cancelled", "manual compaction was cancelled") from exc
            outcome = "compacted" if cutoff else "nothing to compact"
            return self._audit(
                AuditRecord(
                    utc_now(),
                    self.session_id,
                    engine,
                    "compact",
                    outcome,
                    cutoff=cutoff,
                    summary_chars=len(summary) if summary is not None else None,
                    messages_before=len(before),
                    messages_after=len(history.messages()),
                    snapshot=snapshot,
                    instructions=instructions,
                )
            )

    def undo(self) -> AuditRecord:
        """Restore the session to the latest snapshot (the state before the last compaction)."""
        with self._locked("snapshot", "undo", ""):
            latest = self._latest_snapshot()
            if latest is None:
                raise ManualCompactionError("commit", "there is no snapshot to restore")
            target = self.events_file if latest.suffix == ".jsonl" else self.state_file
            write_atomic(target, latest.read_bytes())
            latest.unlink()
            return self._audit(
                AuditRecord(
                    utc_now(), self.session_id, "snapshot", "undo", "restored", snapshot=str(latest)
                )
            )

    def audit_log(self) -> list[dict[str, Any]]:
        if not self.audit_file.exists():
            return []
        return [json.loads(line) for line in self.audit_file.read_text().splitlines() if line]

    def _history(self, engine: Engine) -> History:
        if self.events_file.exists():
            return EventLogHistory(EventLog.open(self.events_file))
        if engine == "dsh":
            raise ManualCompactionError(
                "busy", f"the DSH engine needs an event-log session (no {self.events_file})"
            )
        if not self.state_file.exists():
            raise ManualCompactionError(
                "busy", f"no saved session {self.session_id!r} in {self.base}"
            )
        store = JsonStateStore(self.state_file.parent)
        transcript = Transcript(self.base / "sessions" / f"{self.session_id}.jsonl")
        return StateHistory(self.session_id, store, transcript)

    def _require_idle(self, history: History, messages: list[Message]) -> None:
        log = getattr(history, "log", None)
        if log is not None and log.open_compaction() is not None:
            raise ManualCompactionError("busy", "a compaction of this session is in progress")
        try:
            validate_pairing(messages)
        except PairingError as exc:
            raise ManualCompactionError("busy", f"the session is not consistent: {exc}") from exc
        if messages and messages[-1].tool_calls:
            raise ManualCompactionError("busy", "a tool call is still waiting for its result")

    def _run(self, engine: Engine, history: History, instructions: str) -> tuple[int, str | None]:
        try:
            if engine == "dsh":
                return self._run_dsh(history, instructions)
            return self._run_agentscope(history, instructions)
        except ManualCompactionError:
            raise
        except CompactionBusyError as exc:
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
        )
        thresholds = resolve_thresholds(config, self.model.model_name)
        compaction = Compactor(config, thresholds, self.model).force(history.messages())
        if compaction is None:
            return 0, None
        if compaction.event.summary_failed:  # manual compaction fails closed
            raise SummaryError(
                compaction.event.summary.removeprefix(SUMMARY_UNAVAILABLE).strip()
                or "the summary call returned nothing"
            )
        history.apply_compaction(compaction)
        return compaction.event.cutoff.index, compaction.event.summary

    def _run_dsh(self, history: History, instructions: str) -> tuple[int, str | None]:
        assert isinstance(history, EventLogHistory)
        header = history.latest_header()
        engine = DshEngine(history.log, self.model, DshConfig())
        result = engine.compact_now(header, instructions)
        if result is None:
            return 0, None
        return result.event.cutoff.index, result.event.summary

    def _snapshot(self) -> str:
        source = self.events_file if self.events_file.exists() else self.state_file
        if not source.exists():
            raise ManualCompactionError(
                "busy", f"no saved session {self.session_id!r} in {self.base}"
            )
        number = len(list(self.snapshots.glob(f"{self.session_id}-*"))) + 1
        target = self.snapshots / f"{self.session_id}-{number:04d}{source.suffix}"
        try:
            write_atomic(target, source.read_bytes())
        except OSError as exc:
            raise ManualCompactionError(
                "persistence", f"could not take the snapshot: {exc}"
            ) from exc
        return str(target)

    def _latest_snapshot(self) -> Path | None:
        found = sorted(self.snapshots.glob(f"{self.session_id}-*"))
        return found[-1] if found else None

    def _audit(self, record: AuditRecord) -> AuditRecord:
        try:
            append_text(self.audit_file, json.dumps(asdict(record), ensure_ascii=False) + "\n")
        except OSError as exc:
            raise ManualCompactionError("persistence", f"could not write the audit: {exc}") from exc
        return record

    @contextlib.contextmanager
    def _locked(self, engine: str, action: str, instructions: str) -> Iterator[None]:
        lock = self.base / "locks" / f"{self.session_id}.lock"
        lock.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            raise ManualCompactionError(
                "busy", f"session {self.session_id!r} is locked ({lock})"
            ) from None
        os.close(fd)
        try:
            yield
        except ManualCompactionError as exc:
            self._audit(
                AuditRecord(
                    utc_now(),
                    self.session_id,
                    engine,
                    action,
                    exc.code,
                    instructions=instructions,
                    error=str(exc),
                )
            )
            raise
        finally:
            lock.unlink(missing_ok=True)
