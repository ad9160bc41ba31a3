"""Where an agent's working context lives between calls, and the transcript that keeps
everything.

* :class:`JsonStateStore` saves the working context (what the model sees, summary included) as
  one JSON file, replaced atomically on every change.
* :class:`Transcript` is an append-only JSONL log of every message that ever entered the
  context, and of every compaction, so what compaction removes from the context is still on disk.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.errors import ConfigError
from harness.files import append_text, write_atomic
from harness.messages import Message

__all__ = ["AgentState", "JsonStateStore", "Transcript", "utc_now"]

STATE_FORMAT = 1


def utc_now() -> str:
    """The current instant as ISO-8601 UTC with a ``Z``."""
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


@dataclass
class AgentState:
    """The working context of one session (system prompt excluded)."""

    session_id: str
    context: list[Message] = field(default_factory=list)

    def to_json(self) -> str:
        data = {
            "format": STATE_FORMAT,
            "session_id": self.session_id,
            "context": [m.to_record() for m in self.context],
        }
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> AgentState:
        data = json.loads(text)
        if data.get("format") != STATE_FORMAT:
            raise ConfigError(f"unsupported state format {data.get('format')!r}")
        return cls(data["session_id"], [Message.from_record(m) for m in data["context"]])


class JsonStateStore:
    """One JSON file per session under ``root``; every save replaces the file atomically."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, session_id: str) -> Path:
        return self.root / f"{_safe(session_id)}.json"

    def load(self, session_id: str) -> AgentState:
        """The saved state, or an empty one for a new session."""
        path = self.path(session_id)
        if not path.exists():
            return AgentState(session_id)
        return AgentState.from_json(path.read_text(encoding="utf-8"))

    def save(self, state: AgentState) -> None:
        write_atomic(self.path(state.session_id), state.to_json())


class Transcript:
    """Append-only JSONL: one line per message that entered the context, and per compaction.

    Lines are never rewritten. Each has a contiguous ``seq``, a ``type`` (``message`` or
    ``compaction``) and an ``at`` instant from ``clock``.
    """

    def __init__(self, path: Path, clock: Callable[[], str] = utc_now) -> None:
        self.path = Path(path)
        self.clock = clock
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

    def _append(self, record: dict[str, Any]) -> None:
        line = {"seq": self._seq, "at": self.clock(), **record}
        append_text(self.path, json.dumps(line, ensure_ascii=False) + "\n")
        self._seq += 1

    def _lines(self) -> list[str]:
        if not self.path.exists():
            return []
        return [line for line in self.path.read_text(encoding="utf-8").splitlines() if line]


def _safe(session_id: str) -> str:
    if not session_id or any(not (c.isalnum() or c in "-_.") for c in session_id):
        raise ConfigError(f"session id {session_id!r} may hold only letters, digits, - _ and .")
    return session_id
