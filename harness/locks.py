"""Cross-process locks: one OS file lock per path, shared by every thread of a process.

We use `filelock <https://py-filelock.readthedocs.io>`_ rather than ``fcntl`` by hand: on Unix
it is ``flock(2)`` on a lock file, so the kernel releases the lock the moment its holder dies
(``kill -9`` leaves no stale lock to break by hand), it waits with a timeout, it is reentrant
within a thread and excludes other threads of the same process as well as other processes, and
it opens its lock file with ``O_NOFOLLOW``. Lock files live in ``<folder>/locks/``; their
presence means nothing, only a held ``flock`` does.

:func:`file_lock` is the one place ctxlab takes such a lock, so every writer of one resource
(the memory consolidation, MEMORY.md and its watermark, ...) agrees on the lock file.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from harness.errors import LockTimeoutError

__all__ = ["file_lock", "is_locked"]


def _lock(path: Path) -> FileLock:
    path.parent.mkdir(parents=True, exist_ok=True)
    # One instance per path in a process (is_singleton): a thread that already holds it may take
    # it again; other threads and processes wait.
    return FileLock(str(path), is_singleton=True)


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = 600.0, what: str = "") -> Iterator[None]:
    """Hold the OS lock on ``path`` for the ``with`` block; wait at most ``timeout`` seconds
    (negative: forever), else raise :class:`~harness.errors.LockTimeoutError` naming ``what``."""
    lock = _lock(Path(path))
    try:
        lock.acquire(timeout=timeout)
    except Timeout:
        name = what or str(path)
        raise LockTimeoutError(
            f"{name} is locked by another process or thread ({path}); waited {timeout:g} s"
        ) from None
    try:
        yield
    finally:
        lock.release()


def is_locked(path: Path) -> bool:
    """Whether some live process or thread holds the lock on ``path`` now (a lock file left by
    a killed holder is not a lock)."""
    try:
        with file_lock(path, timeout=0):
            return False
    except LockTimeoutError:
        return True
