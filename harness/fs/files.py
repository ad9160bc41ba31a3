"""Durable file writes: whole-file replacement by temp file + rename, and appends that never
rewrite earlier bytes.

Given a :class:`~harness.fs.path.WorkspacePath` (what the session stores pass), both go
through :class:`~harness.fs.root.SafeRoot` and never follow a symlink; a plain
:class:`~pathlib.Path` (reports, cassettes: folders the operator names) is written as given.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from harness.fs.path import WorkspacePath

__all__ = ["append_fd", "append_text", "read_lines", "read_text", "write_atomic"]


def write_atomic(path: Path | WorkspacePath, data: str | bytes) -> None:
    """Replace ``path`` with ``data`` so that a reader sees the old file or the new, never half.

    The data goes to a temp file in the same folder, is flushed to disk, then renamed over the
    target; the folder is synced so the rename survives a crash.
    """
    if isinstance(path, WorkspacePath):
        path.write_atomic(data)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, _mode_for(path))
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _sync_dir(path.parent)


def append_text(path: Path | WorkspacePath, text: str, sync: bool = True) -> None:
    """Append ``text`` (UTF-8) to ``path`` and, with ``sync``, flush it to disk; earlier bytes
    are untouched. Without ``sync`` the text is in the OS (a killed process loses nothing) and
    reaches the disk when the OS decides or at the next fsync of the file."""
    if isinstance(path, WorkspacePath):
        path.append(text, sync)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as handle:
        handle.write(text.encode("utf-8"))
        handle.flush()
        if sync:
            os.fsync(handle.fileno())


def append_fd(fd: int, text: str, sync: bool = True) -> None:
    """Append ``text`` (UTF-8) at the end of the file open as ``fd`` (a descriptor its caller
    holds under the file's lock, so that no path is walked again) and, with ``sync``, flush it
    to disk. A short write is continued; an error leaves what was written (a torn line the
    next reader moves aside)."""
    payload = memoryview(text.encode("utf-8"))
    os.lseek(fd, 0, os.SEEK_END)
    while payload:
        payload = payload[os.write(fd, payload) :]
    if sync:
        os.fsync(fd)


def _mode_for(path: Path) -> int:
    # mkstemp creates 0600 files; a replaced file keeps its mode, a new one gets the umask's.
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _sync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_text(path: Path) -> str:
    """A file's UTF-8 text; bytes a crash left half-written read as U+FFFD instead of failing."""
    return path.read_bytes().decode("utf-8", errors="replace")


def read_lines(path: Path) -> list[str]:
    """The file's lines as editors number them: split at ``\n`` only (not at U+2028 & co)."""
    text = read_text(path)
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n") if text else []
