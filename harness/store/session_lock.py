"""One writer per session: an OS file lock on ``locks/<session>.lock`` that names its holder.

Whoever writes a saved session holds this lock for the whole of its work: an agent call
(:class:`~harness.harness_agent.HarnessAgent`, the whole turn: user message, every model request,
every tool, every compaction), a manual compaction and an undo
(:mod:`harness.compaction.manual`). Readers (``session_search``, :meth:`HarnessAgent.context
<harness.harness_agent.HarnessAgent>`, ``EventLog.replay``) never take it, so they never wait.

The lock is ``flock`` (:func:`harness.fs.locks.try_exclusive`), so the kernel
releases it when its holder dies (``kill -9`` included) and a lock nobody holds is never
"busy". While held, the file holds one JSON line naming the holder: user, host, pid, start time
and action. The file is removed before the lock goes, and a waiter re-checks the file it
locked, so two holders never share it. A lock file that still names an earlier holder when it
is taken (a killed holder cannot remove it) is handed to the caller as ``previous`` so it can
audit the broken lock.

A second caller retries every :data:`POLL_SECONDS` for up to ``timeout`` seconds (0: one try)
and then gets :class:`~harness.errors.SessionBusyError` naming the holder. It logs one line
(logger ``harness.session``) when it starts waiting. The lock is not re-entrant: another
thread, or the holder itself taking it again, waits like another process (so a manual
compaction inside an agent's turn is busy, as it must be).
"""

from __future__ import annotations

import contextlib
import getpass
import json
import logging
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness import json_depth
from harness.errors import PathEscapeError, SessionBusyError
from harness.fs.locks import try_exclusive
from harness.fs.path import WorkspacePath
from harness.store.statefile import utc_now

__all__ = ["POLL_SECONDS", "holder", "session_lock", "who"]

logger = logging.getLogger("harness.session")

POLL_SECONDS = 0.01
"""How often a waiter retries the lock."""


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
        data = json_depth.loads(text) if text else None
    except (OSError, ValueError, PathEscapeError):
        return None
    return data if isinstance(data, dict) else None


@contextlib.contextmanager
def session_lock(
    path: Path | WorkspacePath, action: str, timeout: float = 0.0
) -> Iterator[dict[str, Any] | None]:
    """Hold the session lock at ``path`` for ``action``; yields the earlier holder the file
    still named (gone, since its lock was free) or None. Waits up to ``timeout`` seconds for a
    live holder, then raises :class:`SessionBusyError`."""
    lock = WorkspacePath.of(path)
    fd = _acquire(lock, timeout)
    try:
        previous = holder(lock)
        record = {**who(), "started": utc_now(), "action": action}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(record) + "\n").encode("utf-8"), 0)
        yield previous
    finally:
        try:  # unlinked before the lock goes: a waiter re-checks the file it locked
            with contextlib.suppress(FileNotFoundError):
                lock.unlink()
        finally:
            os.close(fd)


def _acquire(lock: WorkspacePath, timeout: float) -> int:
    deadline = time.monotonic() + max(timeout, 0.0)
    waiting = False
    while True:
        fd = try_exclusive(lock)
        if fd is not None:
            return fd
        current = holder(lock) or {}
        left = deadline - time.monotonic()
        if left <= 0:
            raise SessionBusyError(lock.path, current, timeout)
        if not waiting:
            waiting = True
            logger.info(
                "%s is busy (pid %s on %s, %s since %s); waiting up to %g s",
                lock,
                current.get("pid", "?"),
                current.get("host", "?"),
                current.get("action", "?"),
                current.get("started", "?"),
                timeout,
            )
        time.sleep(min(POLL_SECONDS, left))
