"""An exclusive OS file lock (``fcntl.flock``) held on an open file.

Why ``flock`` directly rather than ``filelock``/``portalocker``: the lock is taken on the data
file itself (the event log), so there is no side file to leak or clean up; the kernel drops it
when its holder dies (``kill -9`` included), so no lock is ever stale; and it costs no new
dependency. ``flock`` locks belong to an open file description, so two opens of one file
exclude each other even inside one process. ctxlab runs on POSIX systems only.

The file is opened through :class:`~harness.fs.path.WorkspacePath` (component by
component, ``O_NOFOLLOW``): a symlink in place of the file or of a folder above it is refused
with :class:`~harness.errors.PathEscapeError`, never locked or created outside.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from harness.errors import EventLogLockError
from harness.fs.path import WorkspacePath

__all__ = ["exclusive", "try_exclusive"]

_OPEN = os.O_RDWR | os.O_CREAT


@contextlib.contextmanager
def exclusive(path: Path | WorkspacePath) -> Iterator[int]:
    """Hold an exclusive lock on ``path`` (created if missing), waiting for other holders;
    yields the open descriptor (read-write, so the holder may read and truncate through it)."""
    fd = WorkspacePath.of(path).open_fd(_OPEN)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            raise EventLogLockError(f"could not lock {path}: {exc}") from exc
        yield fd
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


def try_exclusive(path: Path | WorkspacePath) -> int | None:
    """An open descriptor holding an exclusive lock on ``path`` (created if missing), or None
    when another open file holds it. The caller closes the descriptor to release it; the lock
    is on the file that was at ``path`` when it was taken, which is re-checked here so that a
    holder unlinking the file on release cannot hand out two locks."""
    target = WorkspacePath.of(path)
    fd = target.open_fd(_OPEN)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except OSError:
        os.close(fd)
        raise
    now = target.stat()
    if now is None or now.st_ino != os.fstat(fd).st_ino:
        # the holder released and unlinked it between our open and our lock
        os.close(fd)
        return try_exclusive(target)
    return fd
