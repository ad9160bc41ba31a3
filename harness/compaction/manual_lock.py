"""The manual compaction's per-session lock: an OS file lock that records its holder.

``locks/<session>.lock`` is held with ``flock``
(:func:`harness.store.eventlog.oslock.try_exclusive`) for the whole attempt and holds one JSON line
naming the holder: pid, host, user and start time.
The kernel releases the lock when its holder dies (``kill -9`` included), so a lock nobody holds
is never "busy": the next attempt takes it, and when the file still names an earlier holder (a
killed ``ctxlab compact`` cannot remove it), that holder is reported as gone so the caller can
audit the broken lock. A live holder makes the attempt fail at once with who holds it.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.errors import ManualCompactionError, PathEscapeError
from harness.store.eventlog.oslock import try_exclusive
from harness.store.statefile import utc_now
from harness.workspace_path import WorkspacePath

__all__ = ["holder", "session_lock", "who"]


def who() -> dict[str, Any]:
    """This process as an audit line names it: user, host and pid."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER
        user = str(os.getuid())
    return {"user": user, "host": socket.gethostname(), "pid": os.getpid()}


def holder(path: Path | WorkspacePath) -> dict[str, Any] | None:
    """The holder a lock file names, or None when it is empty, missing or unreadable."""
    try:
        text = WorkspacePath.of(path).read_text().strip()
        data = json.loads(text) if text else None
    except (OSError, ValueError, PathEscapeError):
        return None
    return data if isinstance(data, dict) else None


@contextlib.contextmanager
def session_lock(path: Path | WorkspacePath, action: str) -> Iterator[dict[str, Any] | None]:
    """Hold the lock at ``path`` for ``action``; yields the earlier holder the file still named
    (gone, since its lock was free) or None. ManualCompactionError ``busy`` while a live
    process holds it."""
    fd = try_exclusive(path)
    if fd is None:
        current = holder(path) or {}
        raise ManualCompactionError(
            "busy",
            f"the session is locked by pid {current.get('pid', '?')} on "
            f"{current.get('host', '?')} since {current.get('started', '?')} ({path})",
        )
    try:
        previous = holder(path)
        record = {**who(), "started": utc_now(), "action": action}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(record) + "\n").encode("utf-8"), 0)
        os.fsync(fd)
        yield previous
    finally:
        try:  # unlinked before the lock goes: a waiter re-checks the file it locked
            with contextlib.suppress(FileNotFoundError):
                WorkspacePath.of(path).unlink()
        finally:
            os.close(fd)
