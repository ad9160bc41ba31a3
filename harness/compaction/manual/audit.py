"""One line of manual compaction's ``audit.jsonl`` (:mod:`harness.compaction.manual`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness import json_depth
from harness.errors import ManualCompactionError
from harness.fs.path import WorkspacePath

__all__ = ["AuditRecord", "read_audit"]


def read_audit(path: WorkspacePath) -> list[dict[str, Any]]:
    """The lines of the audit file ``path`` (none when it is missing); ``damaged`` naming the
    line when one cannot be read (undo and the snapshot clean-up decide from them, so none is
    skipped)."""
    if not path.exists():
        return []
    lines = []
    for number, line in enumerate(path.read_bytes().split(b"\n"), 1):
        if not line:
            continue
        try:
            entry = json_depth.loads(line)
        except ValueError as exc:  # not UTF-8, not JSON, or nested too deep
            entry = exc
        if not isinstance(entry, dict):
            raise ManualCompactionError(
                "damaged",
                f"{path}:{number}: an audit line that is not a JSON object; "
                "restore the file from a backup or move it aside",
            )
        lines.append(entry)
    return lines


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
