"""A file (or folder) below a trusted folder, read and written without following a symlink.

:class:`WorkspacePath` pairs a :class:`~harness.fs.root.SafeRoot` (the trusted folder: the
user's workspace) with a path relative to it. Every operation opens the path component by
component with ``O_NOFOLLOW`` from the root (:mod:`harness.fs.root`), so a folder swapped for
a symlink at any moment (``events/``, ``state/``, ``sessions/``, ``locks/``) makes the operation
fail instead of leaving the workspace. The session stores, their locks and the workspace's lock
files hold one instead of a :class:`~pathlib.Path`.

A plain :class:`~pathlib.Path` given where a ``WorkspacePath`` is expected trusts its own
folder (:meth:`WorkspacePath.of`): the caller chose it, as the operator chooses a workspace.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from harness.fs.root import SafeRoot

__all__ = ["WorkspacePath"]


@dataclass(frozen=True)
class WorkspacePath:
    """``relative`` below ``root``, never through a symlink."""

    root: SafeRoot
    relative: str
    """Slash-separated, relative to ``root.base`` (``""`` is the root itself)."""

    @classmethod
    def of(cls, target: Path | str | WorkspacePath) -> WorkspacePath:
        """``target`` itself, or a plain file path whose folder is trusted."""
        if isinstance(target, WorkspacePath):
            return target
        path = Path(target)
        return cls(SafeRoot(path.parent), path.name)

    @classmethod
    def folder(cls, target: Path | str | WorkspacePath) -> WorkspacePath:
        """``target`` itself, or a plain folder path that is trusted whole."""
        if isinstance(target, WorkspacePath):
            return target
        return cls(SafeRoot(Path(target)), "")

    # --- naming --------------------------------------------------------------------------

    @property
    def path(self) -> Path:
        """The absolute-or-as-given path, for messages and for code that only reports it."""
        return self.root.base / self.relative if self.relative else self.root.base

    @property
    def name(self) -> str:
        return PurePosixPath(self.relative).name

    def __truediv__(self, name: str) -> WorkspacePath:
        relative = f"{self.relative}/{name}" if self.relative else name
        return WorkspacePath(self.root, relative)

    def __str__(self) -> str:
        return str(self.path)

    # --- reading -------------------------------------------------------------------------

    def kind(self) -> str | None:
        """``file``, ``dir``, ``link``, ``other`` or None (missing, or a folder on the way is
        missing or a symlink)."""
        return self.root.kind(self.relative)

    def stat(self) -> os.stat_result | None:
        """The status of the regular file here, or None (missing, not a regular file, or a
        symlink on the way)."""
        return self.root.stat(self.relative)

    def exists(self) -> bool:
        """Whether a regular file is here: False when it (or a folder on the way) is missing,
        PathEscapeError when it or a folder on the way is a symlink (never "missing")."""
        try:
            os.close(self.open_fd(os.O_RDONLY))
        except FileNotFoundError:
            return False
        return True

    def read_bytes(self, offset: int = 0) -> bytes:
        """The file's bytes from ``offset``; FileNotFoundError when missing, PathEscapeError
        through a symlink."""
        return self.root.read_bytes(self.relative, offset)

    def read_text(self) -> str:
        return self.read_bytes().decode("utf-8")

    # --- writing -------------------------------------------------------------------------

    def append(self, data: str | bytes, sync: bool = True) -> None:
        """Append and, with ``sync``, fsync (the folders are made if missing)."""
        self.root.append(self.relative, data, sync)

    def fsync(self) -> None:
        """Flush the file to disk (FileNotFoundError when it is missing)."""
        self.root.fsync(self.relative)

    def write_atomic(self, data: str | bytes, sync: bool = True) -> None:
        """Replace the file whole: temp file + rename in its folder, fsynced unless ``sync``
        is False (for caches that are checked when read)."""
        self.root.write_atomic(self.relative, data, sync)

    def truncate(self, size: int, sync: bool = True) -> None:
        self.root.truncate(self.relative, size, sync)

    def unlink(self) -> None:
        self.root.unlink(self.relative)

    def open_fd(self, flags: int, mode: int = 0o666) -> int:
        """A descriptor of the regular file here (``O_CREAT`` makes it and its folders)."""
        return self.root.open_fd(self.relative, flags, mode)
