"""``OSError`` at a store's public boundary becomes one typed sentence naming the file.

A full disk, a read-only mount or a permission change surfaces deep inside a write as a bare
``OSError`` (often without a file name, since every path is opened relative to a folder
descriptor). :func:`on_disk` wraps a store operation and turns any ``OSError`` into a
:class:`~harness.errors.StorageError` that says which file, what failed and what to do; the
original error is its ``__cause__``. What was saved before the failing write stays saved: every
file ctxlab keeps is appended to or replaced atomically.
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator
from pathlib import Path

from harness.errors import StorageError

__all__ = ["on_disk", "storage_error"]

_ADVICE = {
    errno.ENOSPC: "the disk is full: free some space and call again",
    errno.EDQUOT: "the disk quota is used up: free some space and call again",
    errno.EROFS: "the file system is mounted read-only: remount it read-write or use a "
    "writable workspace",
    errno.EACCES: "permission denied: check the owner and mode of the workspace folder",
    errno.EPERM: "the operation is not permitted: check the owner and mode of the workspace folder",
    errno.EIO: "the disk reported an I/O error: check it before going on",
}


def storage_error(exc: OSError, where: Path | str, doing: str) -> StorageError:
    """The :class:`StorageError` for ``exc``, met while ``doing`` the file or folder ``where``
    (the error's own file name is used when it is absolute, joined to ``where`` when not)."""
    path = Path(where)
    if exc.filename and str(exc.filename) not in (".", ""):
        named = Path(str(exc.filename))
        path = named if named.is_absolute() else path / named
    reason = exc.strerror or type(exc).__name__
    advice = _ADVICE.get(exc.errno or 0, "check the file and the disk it is on")
    message = f"Could not {doing} {path} ({reason}); {advice}. What was saved before is kept."
    return StorageError(message, path=path, errno=exc.errno)


@contextlib.contextmanager
def on_disk(where: Path | str, doing: str) -> Iterator[None]:
    """Run the block; an ``OSError`` from it is raised as a :class:`StorageError`."""
    try:
        yield
    except OSError as exc:
        raise storage_error(exc, where, doing) from exc
