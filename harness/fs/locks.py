"""Cross-process locks, all ``flock(2)``: :func:`file_lock`, one OS file lock per lock file,
reentrant within a thread; and :func:`exclusive` / :func:`try_exclusive`, an exclusive lock held
on an open data file.

The lock is ``flock(2)`` on a lock file, so the kernel releases it the moment its holder dies
(``kill -9`` leaves no stale lock to break by hand). It waits with a timeout, it is reentrant
within a thread, and it excludes other threads of the same process (each thread locks its own
open file description) as well as other processes. Lock files live in ``<folder>/locks/``; their
presence means nothing, only a held ``flock`` does, and they are never removed (so every waiter
locks the same inode).

The lock file is opened through :class:`~harness.fs.path.WorkspacePath`, component by
component with ``O_NOFOLLOW``: a ``locks/`` folder (or a lock file) swapped for a symlink is
refused with :class:`~harness.errors.PathEscapeError` and nothing is created outside. That is
why this is ``fcntl.flock`` on our own descriptor rather than ``filelock``, which opens its lock
file by path.

:func:`file_lock` is the one place ctxlab takes such a lock, so every writer of one resource
(the memory consolidation, MEMORY.md and its watermark, ...) agrees on the lock file.

:func:`exclusive` and :func:`try_exclusive` take the lock on the data file itself (the event
log, the session file), so there is no side file to leak or clean up; ``flock`` locks belong to
an open file description, so two opens of one file exclude each other even inside one process.
Like the lock files, the file is opened through :class:`~harness.fs.path.WorkspacePath`: a
symlink in place of the file or of a folder above it is refused, never locked or created
outside. ctxlab runs on POSIX systems only.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from harness.errors import EventLogLockError, LockTimeoutError
from harness.fs.path import WorkspacePath

__all__ = ["exclusive", "file_lock", "is_locked", "try_exclusive"]

POLL_SECONDS = 0.02
"""How often a waiter retries a lock another holder has."""

_CONTENTION = frozenset({errno.EACCES, errno.EAGAIN, errno.EWOULDBLOCK})
_OPEN = os.O_RDWR | os.O_CREAT
_local = threading.local()


def _forget_after_fork() -> None:
    global _local
    _local = threading.local()  # a forked child holds none of its parent's locks


os.register_at_fork(after_in_child=_forget_after_fork)


def _held() -> dict[tuple[int, int], int]:
    """This thread's locks: (device, inode) of the lock file -> how many times it took it."""
    held: dict[tuple[int, int], int] | None = getattr(_local, "held", None)
    if held is None:
        held = _local.held = {}
    return held


@contextlib.contextmanager
def file_lock(path: Path | WorkspacePath, timeout: float = 600.0, what: str = "") -> Iterator[None]:
    """Hold the OS lock on ``path`` for the ``with`` block; wait at most ``timeout`` seconds
    (negative: forever), else raise :class:`~harness.errors.LockTimeoutError` naming ``what``.
    A thread that already holds it (the same lock file, however it is named) takes it again."""
    lock = WorkspacePath.of(path)
    fd = lock.open_fd(_OPEN)
    info = os.fstat(fd)
    key, held = (info.st_dev, info.st_ino), _held()
    if key in held:
        os.close(fd)
        held[key] += 1
        try:
            yield
        finally:
            held[key] -= 1
        return
    try:
        _wait(fd, lock, timeout, what)
    except BaseException:
        os.close(fd)
        raise
    held[key] = 1
    try:
        yield
    finally:
        del held[key]
        os.close(fd)  # releases the flock


def _wait(fd: int, lock: WorkspacePath, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not _try_flock(fd):
        left = deadline - time.monotonic()
        if timeout >= 0 and left <= 0:
            name = what or str(lock)
            raise LockTimeoutError(
                f"{name} is locked by another process or thread ({lock}); waited {timeout:g} s"
            )
        time.sleep(POLL_SECONDS if timeout < 0 else min(POLL_SECONDS, left))


def _try_flock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in _CONTENTION:
            return False
        raise
    return True


def is_locked(path: Path | WorkspacePath) -> bool:
    """Whether some live process or thread holds the lock on ``path`` now (a lock file left by
    a killed holder is not a lock)."""
    try:
        with file_lock(path, timeout=0):
            return False
    except LockTimeoutError:
        return True


@contextlib.contextmanager
def exclusive(path: Path | WorkspacePath, *, create: bool = True) -> Iterator[int]:
    """Hold an exclusive lock on ``path`` (created if missing, or FileNotFoundError without
    ``create``), waiting for other holders; yields the open descriptor (read-write, so the
    holder may read, append and truncate through it; it is opened ``O_APPEND``)."""
    flags = os.O_RDWR | os.O_APPEND | (os.O_CREAT if create else 0)  # writes land at the end
    fd = WorkspacePath.of(path).open_fd(flags)
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
