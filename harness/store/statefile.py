"""Where an agent's working context lives between calls, and the transcript that keeps
everything.

* :class:`JsonStateStore` keeps the working context (what the model sees, summary included) as
  a **checkpoint** (one compact JSON file, replaced atomically) plus an append-only **journal**
  of the messages added since. A turn appends a few journal lines, so persisting it costs
  O(what changed), not O(context); a compaction (or a journal grown as long as the checkpoint)
  writes a new checkpoint. Each checkpoint has an ``epoch`` and journal lines carry theirs, so
  a crash between writing a checkpoint and emptying the journal leaves lines that are ignored.
* :class:`Transcript` is an append-only JSONL log of every message that ever entered the
  context, and of every compaction, so what compaction removes from the context is still on disk.

Both hold :class:`~harness.workspace_path.WorkspacePath` paths: every read, append, truncation
and atomic replace opens its file component by component from the workspace without
following a symlink (a ``state/`` or ``sessions/`` folder swapped for one mid-run is refused
with :class:`~harness.errors.PathEscapeError`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.errors import ConfigError, StateStoreError
from harness.files import append_text, write_atomic
from harness.messages import Message
from harness.workspace_path import WorkspacePath

__all__ = ["AgentState", "JsonStateStore", "Transcript", "utc_now"]

STATE_FORMAT = 2
"""Format 2: compact JSON with an ``epoch``; format 1 (indented, no journal) is still read."""

_READABLE_FORMATS = frozenset({1, 2})


def utc_now() -> str:
    """The current instant as ISO-8601 UTC with a ``Z``."""
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


@dataclass
class AgentState:
    """The working context of one session (system prompt excluded)."""

    session_id: str
    context: list[Message] = field(default_factory=list)
    epoch: int = 0
    """The checkpoint this state was loaded from or last saved as."""

    def to_json(self) -> str:
        data = {
            "format": STATE_FORMAT,
            "session_id": self.session_id,
            "epoch": self.epoch,
            "context": [m.to_record() for m in self.context],
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"

    @classmethod
    def from_json(cls, text: str) -> AgentState:
        data = json.loads(text)
        if data.get("format") not in _READABLE_FORMATS:
            raise ConfigError(f"unsupported state format {data.get('format')!r}")
        context = [Message.from_record(m) for m in data["context"]]
        return cls(data["session_id"], context, int(data.get("epoch", 0)))


class JsonStateStore:
    """A checkpoint file and a journal per session in the folder ``root`` (see the module
    docstring); a plain path is a trusted folder, a WorkspacePath is checked from its root."""

    def __init__(self, root: Path | WorkspacePath) -> None:
        self.folder = WorkspacePath.folder(root)
        self.root = self.folder.path
        self._journal_lines: dict[str, int] = {}

    def path(self, session_id: str) -> Path:
        """The checkpoint file."""
        return self.file(session_id).path

    def journal_path(self, session_id: str) -> Path:
        """The journal of messages appended since the checkpoint."""
        return self.journal(session_id).path

    def file(self, session_id: str) -> WorkspacePath:
        """The checkpoint file, opened only without following a symlink."""
        return self.folder / f"{_safe(session_id)}.json"

    def journal(self, session_id: str) -> WorkspacePath:
        """The journal, opened only without following a symlink."""
        return self.folder / f"{_safe(session_id)}.journal.jsonl"

    def exists(self, session_id: str) -> bool:
        """Whether the session was ever saved (a checkpoint or a journal)."""
        return any(f.kind() is not None for f in (self.file(session_id), self.journal(session_id)))

    def load(self, session_id: str) -> AgentState:
        """The saved state (checkpoint + journal of its epoch), or an empty one for a new
        session. A torn last journal line (a crash mid-append) is dropped from the file."""
        file = self.file(session_id)
        try:
            state = AgentState.from_json(file.read_text())
        except FileNotFoundError:
            state = AgentState(session_id)
        except _MALFORMED as exc:  # any damage is one sentence naming the file, never a traceback
            raise _damaged(file, "checkpoint", exc) from exc
        records = self._read_journal(session_id, state.epoch)
        journal = self.journal(session_id)
        try:
            state.context.extend(Message.from_record(r) for r in records)
        except _MALFORMED as exc:
            raise _damaged(journal, "journal", exc) from exc
        self._journal_lines[session_id] = len(records)
        return state

    def save(self, state: AgentState) -> None:
        """Write ``state`` as a new checkpoint (the next epoch), then empty the journal."""
        state.epoch += 1
        write_atomic(self.file(state.session_id), state.to_json())
        with contextlib.suppress(FileNotFoundError):
            self.journal(state.session_id).truncate(0)
        self._journal_lines[state.session_id] = 0

    def append(self, state: AgentState, messages: Sequence[Message]) -> None:
        """Persist ``messages`` (already added to ``state.context``) as journal lines; a
        journal longer than the checkpoint is folded into a new one (amortised O(1))."""
        if not messages:
            return
        lines = "".join(
            json.dumps({"epoch": state.epoch, "message": m.to_record()}, ensure_ascii=False) + "\n"
            for m in messages
        )
        append_text(self.journal(state.session_id), lines)
        count = self._journal_lines.get(state.session_id, 0) + len(messages)
        self._journal_lines[state.session_id] = count
        if count > max(64, len(state.context) - count):  # longer than the checkpoint
            self.save(state)

    def _read_journal(self, session_id: str, epoch: int) -> list[dict[str, Any]]:
        journal = self.journal(session_id)
        try:
            raw = journal.read_bytes()
        except FileNotFoundError:
            return []
        lines = raw.split(b"\n")
        tail = lines.pop()
        records = []
        for number, line in enumerate(lines, 1):
            try:
                entry = json.loads(line.decode("utf-8"))
            except ValueError as exc:
                if number == len(lines) and not tail:  # a crash left the last line unreadable
                    tail = line + b"\n"
                    break
                raise StateStoreError(
                    f"{journal}:{number}: unreadable journal line; {_WHAT_TO_DO}"
                ) from exc
            if not isinstance(entry, dict) or not isinstance(entry.get("message", {}), dict):
                raise StateStoreError(f"{journal}:{number}: not a journal entry; {_WHAT_TO_DO}")
            if entry.get("epoch") == epoch:
                if "message" not in entry:
                    raise StateStoreError(f"{journal}:{number}: no message; {_WHAT_TO_DO}")
                records.append(entry["message"])
        if tail:
            journal.truncate(len(raw) - len(tail))
        return records


class Transcript:
    """Append-only JSONL: one line per message that entered the context, and per compaction.

    Lines are never rewritten. Each has a contiguous ``seq``, a ``type`` (``message`` or
    ``compaction``) and an ``at`` instant from ``clock``.
    """

    def __init__(self, path: Path | WorkspacePath, clock: Callable[[], str] = utc_now) -> None:
        self.file = WorkspacePath.of(path)
        self.path = self.file.path
        self.clock = clock
        self._seq = sum(1 for _ in self._lines())

    def recount(self) -> None:
        """Count the lines again (another writer appended since): the next ``seq`` follows
        the file's last line."""
        self._seq = sum(1 for _ in self._lines())

    def append_messages(self, messages: Iterable[Message]) -> None:
        for message in messages:
            self._append({"type": "message", "message": message.to_record()})

    def append_compaction(self, prefix: Sequence[Message], details: dict[str, Any]) -> None:
        """Record that ``prefix`` was summarised away (its messages are already logged)."""
        record = {"type": "compaction", "prefix": [m.to_record() for m in prefix], **details}
        self._append(record)

    def entries(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self._lines()]

    def messages(self) -> list[Message]:
        """Every message ever logged, in order (including those compaction removed)."""
        return [Message.from_record(e["message"]) for e in self.entries() if e["type"] == "message"]

    def numbered_messages(self) -> list[tuple[int, Message]]:
        """``(line number, message)`` of each message line, lines numbered as editors do
        (split at ``\n`` only); a line a crash tore or left unreadable is skipped."""
        try:
            raw = self.file.read_bytes()
        except FileNotFoundError:
            return []
        found = []
        for number, line in enumerate(raw.decode("utf-8", errors="replace").split("\n"), 1):
            message = _message_of(line)
            if message is not None:
                found.append((number, message))
        return found

    def _append(self, record: dict[str, Any]) -> None:
        line = {"seq": self._seq, "at": self.clock(), **record}
        append_text(self.file, json.dumps(line, ensure_ascii=False) + "\n")
        self._seq += 1

    def _lines(self) -> list[str]:
        try:
            text = self.file.read_bytes().decode("utf-8", errors="replace")  # a torn tail
        except FileNotFoundError:
            return []
        return [line for line in text.splitlines() if line]


def _message_of(line: str) -> Message | None:
    try:
        entry = json.loads(line)
        record = entry.get("message") if entry.get("type") == "message" else None
        return None if not isinstance(record, dict) else Message.from_record(record)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None  # torn by a crash, or not an entry of ours


_MALFORMED = (ValueError, KeyError, TypeError, AttributeError)
"""What reading a damaged checkpoint or record raises (UnicodeDecodeError and JSONDecodeError
are ValueErrors); a ConfigError (an unknown format) is a ValueError too."""
_WHAT_TO_DO = (
    "restore it from a backup, or move it aside to start the session again without its history"
)


def _damaged(file: WorkspacePath, what: str, exc: BaseException) -> StateStoreError:
    """The error for a damaged checkpoint or journal: the file, why, and what to do."""
    reason = f"{type(exc).__name__}: {exc}" if isinstance(exc, KeyError) else str(exc)
    return StateStoreError(
        f"The session's {what} {file} cannot be read ({reason[:200]}); {_WHAT_TO_DO}."
    )


def _safe(session_id: str) -> str:
    if not session_id or any(not (c.isalnum() or c in "-_.") for c in session_id):
        raise ConfigError(f"session id {session_id!r} may hold only letters, digits, - _ and .")
    return session_id
