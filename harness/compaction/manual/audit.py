"""One line of manual compaction's ``audit.jsonl`` (:mod:`harness.compaction.manual`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["AuditRecord"]


@dataclass(frozen=True)
class AuditRecord:
    """One line of ``audit.jsonl``."""

    at: str
    session: str
    engine: str
    action: str
    """``compact``, ``undo`` or ``lock``."""
    outcome: str
    """``started``, ``compacted``, ``nothing to compact``, ``restored``, ``broken`` (a lock
    whose holder was gone) or an error code."""
    trigger: str = "manual"
    cutoff: int | None = None
    summary_chars: int | None = None
    messages_before: int | None = None
    messages_after: int | None = None
    snapshot: str | None = None
    """State-file sessions: the snapshot a committed compaction left for undo."""
    instructions: str = ""
    error: str | None = None
    attempt: str | None = None
    """One id per attempt: its ``started`` line and its outcome line share it."""
    after_digest: str | None = None
    """Of the context a committed compaction left (undo checks it is still the start)."""
    undone: str | None = None
    """On an undo line: the attempt (or event-log compaction id) it undid."""
    user: str = ""
    host: str = ""
    pid: int = 0
    """Who: filled in from this process when left empty."""
    holder: dict[str, Any] | None = field(default=None)
    """On a ``broken`` lock line: the holder the lock file named."""
