"""Where an agent's working context lives between calls, and the transcript that keeps
everything.

* :class:`JsonStateStore` keeps the working context (what the model sees, summary included) as
  a **checkpoint** (one compact JSON file, replaced atomically) plus an append-only **journal**
  of the messages added since. A turn appends a few journal lines, so persisting it costs
  O(what changed), not O(context); a compaction appends one line holding the new context (read
  in place of everything before it), and a journal grown longer than the checkpoint (and than
  :data:`JOURNAL_FLOOR` messages) is folded into a new checkpoint. Each checkpoint has an
  ``epoch`` and journal lines carry theirs, so a crash between writing a checkpoint and
  emptying the journal leaves lines that are ignored.
* :class:`Transcript` is an append-only JSONL log of every message that ever entered the
  context, and of every compaction, so what compaction removes from the context is still on disk.

Both hold :class:`~harness.fs.path.WorkspacePath` paths: every read, append, truncation
and atomic replace opens its file component by component from the workspace without
following a symlink (a ``state/`` or ``sessions/`` folder swapped for one mid-run is refused
with :class:`~harness.errors.PathEscapeError`).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness import json_depth
from harness.errors import ConfigError, StateStoreError
from harness.fs.files import append_text, write_atomic
from harness.fs.path import WorkspacePath
from harness.messages import Message
from harness.store.appended_lines import AppendedLines
from harness.store.durability import Durability, check_durability, syncs_each_append
from harness.store.torn import set_aside, torn_tail

__all__ = ["AgentState", "JsonStateStore", "Transcript", "utc_now"]

STATE_FORMAT = 2
"""Format 2: compact JSON with an ``epoch``; format 1 (indented, no journal) is still read."""

_READABLE_FORMATS = frozenset({1, 2})

JOURNAL_FLOOR = 256
"""A journal is folded into a new checkpoint once it holds more messages than this and than
the checkpoint: amortised O(1) per message, a reopen reads at most twice the context, and a
short session never pays a fold's fsyncs (the temp file's and the folder's)."""

logger = logging.getLogger("harness.store")


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
        data = json_depth.loads(text)
        if data.get("format") not in _READABLE_FORMATS:
            raise ConfigError(f"unsupported state format {data.get('format')!r}")
        context = [Message.from_record(m) for m in data["context"]]
        return cls(data["session_id"], context, int(data.get("epoch", 0)))


class JsonStateStore:
    """A checkpoint file and a journal per session in the folder ``root`` (see the module
    docstring); a plain path is a trusted folder, a WorkspacePath is checked from its root."""

    def __init__(self, root: Path | WorkspacePath, *, durability: Durability = "per-event") -> None:
        self.folder = WorkspacePath.folder(root)
        self.root = self.folder.path
        self.durability = check_durability(durability)
        """When journal appends reach the disk (:mod:`harness.store.durability`); with
        ``per-turn`` the owner calls :meth:`commit` at the end of each turn. A checkpoint is
        fsynced in every setting."""
        self._journal_lines: dict[str, int] = {}
        self._unsynced: set[str] = set()

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
        reset, records = self._read_journal(session_id, state.epoch)
        journal = self.journal(session_id)
        try:
            if reset is not None:
                state.context = [Message.from_record(r) for r in reset]
            state.context.extend(Message.from_record(r) for r in records)
        except _MALFORMED as exc:
            raise _damaged(journal, "journal", exc) from exc
        self._journal_lines[session_id] = len(records) + len(reset or ())
        return state

    def save(self, state: AgentState) -> None:
        """Write ``state`` as a new checkpoint (the next epoch), then empty the journal."""
        state.epoch += 1
        write_atomic(self.file(state.session_id), state.to_json())
        with contextlib.suppress(FileNotFoundError):
            # no fsync: lines of an older epoch are ignored, so a cut lost to a power cut costs
            # nothing but the bytes
            self.journal(state.session_id).truncate(0, sync=False)
        self._journal_lines[state.session_id] = 0
        self._unsynced.discard(state.session_id)  # the checkpoint holds what it had

    def commit(self, session_id: str) -> None:
        """Flush the session's journal appends since the last commit to the disk (one fsync;
        ``per-turn`` only: ``per-event`` synced each append, ``os`` leaves it to the OS)."""
        if session_id not in self._unsynced:
            return
        self._unsynced.discard(session_id)
        if self.durability == "per-turn":
            with contextlib.suppress(FileNotFoundError):
                self.journal(session_id).fsync()

    def append(self, state: AgentState, messages: Sequence[Message]) -> None:
        """Persist ``messages`` (already added to ``state.context``) as journal lines; a
        journal longer than the checkpoint is folded into a new one (amortised O(1))."""
        if not messages:
            return
        lines = "".join(
            json.dumps({"epoch": state.epoch, "message": m.to_record()}, ensure_ascii=False) + "\n"
            for m in messages
        )
        self._journal(state, lines, len(messages))

    def replace(self, state: AgentState) -> None:
        """Persist ``state.context`` whole (a compaction replaced it) as one journal line
        that a load reads in place of everything before it: a compaction is an append like
        any other, committed with its turn, not a checkpoint of its own."""
        context = [m.to_record() for m in state.context]
        line = json.dumps({"epoch": state.epoch, "context": context}, ensure_ascii=False)
        self._journal(state, line + "\n", len(context))

    def _journal(self, state: AgentState, lines: str, messages: int) -> None:
        if syncs_each_append(self.durability):
            append_text(self.journal(state.session_id), lines)
        else:
            append_text(self.journal(state.session_id), lines, sync=False)
            self._unsynced.add(state.session_id)
        count = self._journal_lines.get(state.session_id, 0) + messages
        self._journal_lines[state.session_id] = count
        if count > max(JOURNAL_FLOOR, len(state.context) - count):  # longer than the checkpoint
            self.save(state)

    def _read_journal(
        self, session_id: str, epoch: int
    ) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]]]:
        """The journal's lines of ``epoch``: the context of its last replace line (None:
        none) and the messages appended after it."""
        journal = self.journal(session_id)
        try:
            raw = journal.read_bytes()
        except FileNotFoundError:
            return None, []
        lines = raw.split(b"\n")
        tail = lines.pop()
        reset: list[dict[str, Any]] | None = None
        records: list[dict[str, Any]] = []
        for number, line in enumerate(lines, 1):
            try:
                entry = json_depth.loads(line.decode("utf-8"))
            except (ValueError, RecursionError) as exc:  # too deep to parse is unreadable too
                if number == len(lines) and not tail:  # a crash left the last line unreadable
                    tail = line + b"\n"
                    break
                raise StateStoreError(
                    f"{journal}:{number}: unreadable journal line; {_WHAT_TO_DO}"
                ) from exc
            _check_entry(entry, f"{journal}:{number}")
            if entry.get("epoch") != epoch:
                continue
            if "context" in entry:  # a compaction: the context from here on
                reset, records = list(entry["context"]), []
            else:
                records.append(entry["message"])
        if tail:  # moved aside to <journal>.corrupt, then cut: never deleted
            good = len(raw) - len(tail)
            set_aside(journal, good, tail, "a torn or unreadable last journal line")
            logger.warning(
                "%s: moved a torn or unreadable last line to %s.corrupt", journal, journal.name
            )
        return reset, records


class Transcript:
    """Append-only JSONL: one line per message that entered the context, and per compaction.

    Lines are never rewritten. Each has a contiguous ``seq``, a ``type`` (``message`` or
    ``compaction``) and an ``at`` instant from ``clock``.
    """

    def __init__(
        self,
        path: Path | WorkspacePath,
        clock: Callable[[], str] = utc_now,
        *,
        durability: Durability = "per-event",
    ) -> None:
        self.file = WorkspacePath.of(path)
        self.path = self.file.path
        self.clock = clock
        self.durability = check_durability(durability)
        """When appends reach the disk (:mod:`harness.store.durability`)."""
        self._seq: int | None = None  # read from the file's last line at the first append
        self._unsynced = False
        self._read: AppendedLines[Message] = AppendedLines(_message_of)

    def commit(self) -> None:
        """Flush the appends since the last commit to the disk (``per-turn`` only)."""
        if self._unsynced:
            self._unsynced = False
            if self.durability == "per-turn":
                self.file.fsync()

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
        return [json_depth.loads(line) for line in self._lines()]

    def messages(self) -> list[Message]:
        """Every message ever logged, in order (including those compaction removed)."""
        return [Message.from_record(e["message"]) for e in self.entries() if e["type"] == "message"]

    def numbered_messages(self) -> list[tuple[int, Message]]:
        """``(line number, message)`` of each message line, lines numbered as editors do
        (split at ``\n`` only); a line a crash tore or left unreadable is skipped. Only what
        was appended since the last call is parsed (:mod:`harness.store.appended_lines`):
        the messages are shared between calls, read-only."""
        return self._read.read(lambda: self.file.root.open_read(self.file.relative))

    def _append(self, record: dict[str, Any]) -> None:
        if self._seq is None:
            self._seq = self._repair_tail()
        line = {"seq": self._seq, "at": self.clock(), **record}
        text = json.dumps(line, ensure_ascii=False) + "\n"
        if syncs_each_append(self.durability):
            append_text(self.file, text)
        else:
            append_text(self.file, text, sync=False)
            self._unsynced = True
        self._seq += 1

    def _repair_tail(self) -> int:
        """Before the first append: move a torn last line (no newline) or an unreadable last
        line aside to ``<transcript>.corrupt`` (appended onto it, the next line would be
        unreadable too), and return the next seq (read from the last line, not by counting)."""
        try:
            raw = self.file.read_bytes()
        except FileNotFoundError:
            return 0
        cut = torn_tail(raw)
        lines = raw[: len(raw) - cut].split(b"\n")[:-1]
        count = len(lines) - (1 if lines and _entry_of(lines[-1]) is None else 0)
        last = _entry_of(lines[-1]) if lines else None
        if lines and last is None:
            cut += len(lines.pop()) + 1
        if cut:
            good = len(raw) - cut
            set_aside(self.file, good, raw[good:], "a torn or unreadable last transcript line")
            logger.warning(
                "%s: moved a torn or unreadable last line to %s.corrupt", self.file, self.file.name
            )
        while lines and last is None:
            last = _entry_of(lines.pop())
        seq = last.get("seq") if last is not None else None
        return seq + 1 if isinstance(seq, int) and not isinstance(seq, bool) else count

    def _lines(self) -> list[str]:
        try:
            text = self.file.read_bytes().decode("utf-8", errors="replace")  # a torn tail
        except FileNotFoundError:
            return []
        return [line for line in text.splitlines() if line]


def _entry_of(line: bytes) -> dict[str, Any] | None:
    try:
        entry = json_depth.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    return entry if isinstance(entry, dict) else None


def _message_of(line: str) -> Message | None:
    try:
        entry = json_depth.loads(line)
        record = entry.get("message") if entry.get("type") == "message" else None
        return None if not isinstance(record, dict) else Message.from_record(record)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None  # torn by a crash, or not an entry of ours


_MALFORMED = (ValueError, KeyError, TypeError, AttributeError, RecursionError)
"""What reading a damaged checkpoint or record raises (UnicodeDecodeError and JSONDecodeError
are ValueErrors; a ConfigError, an unknown format, is one too; JSON nested too deep for the
parser raises RecursionError)."""
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


def _check_entry(entry: Any, where: str) -> None:
    """A journal line is a message line or a compaction's context line; anything else is
    one sentence naming the line (never a KeyError or AttributeError later)."""
    if not isinstance(entry, dict):
        raise StateStoreError(f"{where}: not a journal entry; {_WHAT_TO_DO}")
    if "context" in entry:
        if not isinstance(entry["context"], list):
            raise StateStoreError(f"{where}: not a journal entry; {_WHAT_TO_DO}")
    elif not isinstance(entry.get("message"), dict):
        raise StateStoreError(f"{where}: no message; {_WHAT_TO_DO}")
