"""Files under a workspace folder, opened without ever following a symlink.

A path is checked and opened in one go: the workspace folder is opened once (it is trusted: the
operator chose it), then every component below it is opened relative to its parent's directory
descriptor with ``O_NOFOLLOW`` (``O_DIRECTORY`` for folders). A symlink anywhere below the
workspace, even one swapped in between two calls, makes the open fail instead of leaving the
workspace, so there is no check-then-open window to race. Reads and writes, tools and the memory
pipeline, all go through :class:`SafeRoot`.

Whole-file writes are temp file + rename inside the target's folder, as
:func:`harness.fs.files.write_atomic` does; the temp files are named ``.<name>.<random>.tmp``
(:data:`TEMP_NAME`), never listed, and removed by :meth:`SafeRoot.remove_temps` after a crash.

:func:`check_name` is the one rule for names that become a path component (user and session
ids): ``../../x`` is refused with one sentence.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from harness.errors import ConfigError, PathEscapeError

__all__ = ["TEMP_NAME", "SafeRoot", "check_name"]

TEMP_NAME = re.compile(r"^\..+\.[A-Za-z0-9_]{6,}\.tmp$")
"""Temp files of an atomic write (ours and :func:`harness.fs.files.write_atomic`'s)."""

_NAME = re.compile(r"[\w.-]+")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_LINK_ERRORS = (errno.ELOOP, errno.EMLINK)
_NO_LINK = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK  # a FIFO must not block the open


def check_name(kind: str, value: str) -> str:
    """``value`` if it is safe as one path component, else ConfigError naming ``kind``."""
    if not isinstance(value, str) or not _NAME.fullmatch(value) or value in (".", ".."):
        raise ConfigError(
            f"{kind} {value!r} may hold only letters, digits, '-', '_' and '.' "
            "(no path separator, not '.' or '..')"
        )
    return value


class SafeRoot:
    """Opens files below ``base`` by paths relative to it, never through a symlink."""

    def __init__(self, base: Path) -> None:
        self.base = base if isinstance(base, Path) else Path(base)  # no second parse

    # --- paths and folders ---------------------------------------------------------------

    def parts(self, relative: str | PurePosixPath) -> list[str]:
        """The components of ``relative``; PathEscapeError for an absolute path or ``..``."""
        text = str(relative)  # split by hand: PurePosixPath's parsing is most of a small open
        parts = [part for part in text.split("/") if part not in ("", ".")]
        if text.startswith("/") or ".." in parts:
            raise PathEscapeError(f"{text!r} is outside the workspace")
        return parts

    @contextlib.contextmanager
    def folder(self, parts: list[str], create: bool = False) -> Iterator[int]:
        """A descriptor of the folder ``parts`` below the base (made when ``create``)."""
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
        try:
            fd = os.open(self.base, flags)
        except FileNotFoundError:
            if not create:
                raise
            self.base.mkdir(parents=True, exist_ok=True)  # only when missing: not per open
            fd = os.open(self.base, flags)
        try:
            for part in parts:
                child = _step(fd, part, create)
                os.close(fd)
                fd = child
            yield fd
        finally:
            os.close(fd)

    def kind(self, relative: str | PurePosixPath) -> str | None:
        """``file``, ``dir``, ``link``, ``other``, or None when it does not exist (or a folder on
        the way is missing or a symlink)."""
        *folders, name = self.parts(relative) or ["."]
        try:
            with self.folder(folders) as fd:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except (FileNotFoundError, PathEscapeError, NotADirectoryError):
            return None
        return _kind(info.st_mode)

    def stat(self, relative: str | PurePosixPath) -> os.stat_result | None:
        """The status of the regular file at ``relative``, or None when it is missing, not a
        regular file, or it or a folder on the way is a symlink."""
        *folders, name = self.parts(relative) or ["."]
        try:
            with self.folder(folders) as fd:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except (FileNotFoundError, PathEscapeError, NotADirectoryError):
            return None
        return info if stat.S_ISREG(info.st_mode) else None

    # --- reading -------------------------------------------------------------------------

    @contextlib.contextmanager
    def open_read(self, relative: str | PurePosixPath) -> Iterator[BinaryIO]:
        """A binary reader of the regular file at ``relative``. FileNotFoundError when it is
        missing; PathEscapeError when it or a folder on the way is a symlink or it is not a
        regular file."""
        fd, _ = self._open_regular(relative)
        with os.fdopen(fd, "rb") as handle:
            yield handle

    def read_bytes(self, relative: str | PurePosixPath, offset: int = 0) -> bytes:
        """The bytes of the regular file at ``relative`` from ``offset`` to its end, errors as
        :meth:`open_read`'s (read with ``pread``: no buffered reader is built for one read)."""
        fd, size = self._open_regular(relative)
        try:
            chunks = []
            while chunk := os.pread(fd, max(size - offset, 0) + 1, offset):
                chunks.append(chunk)
                offset += len(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def _open_regular(self, relative: str | PurePosixPath) -> tuple[int, int]:
        """A blocking read descriptor of the regular file at ``relative`` and its size."""
        *folders, name = self.parts(relative)
        with self.folder(folders) as dir_fd:
            try:
                fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
            except OSError as exc:
                raise _escape(exc, relative) from exc
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(errno.EISDIR, "is a folder", str(relative))
            raise PathEscapeError(f"{str(relative)!r} is not a regular file in the workspace")
        os.set_blocking(fd, True)
        return fd, info.st_size

    def read_text(self, relative: str | PurePosixPath) -> str:
        """UTF-8 text; bytes a crash left half-written read as U+FFFD."""
        return self.read_bytes(relative).decode("utf-8", errors="replace")

    def files(self, relative: str | PurePosixPath = ".", strict: bool = False) -> list[str]:
        """Regular files below the folder ``relative``, recursively, as paths relative to the
        base, sorted. Symlinks, temp files and the ``locks`` folder are left out. A missing,
        symlinked or non-folder ``relative`` has none, or with ``strict`` raises
        FileNotFoundError, PathEscapeError or NotADirectoryError."""
        start = self.parts(relative)
        try:
            with self.folder(start) as fd:
                return sorted(_walk(fd, "/".join(start)))
        except (FileNotFoundError, PathEscapeError, NotADirectoryError):
            if strict:
                raise
            return []

    # --- writing -------------------------------------------------------------------------

    def write_atomic(
        self, relative: str | PurePosixPath, data: str | bytes, sync: bool = True
    ) -> None:
        """Replace the file whole (temp file + rename in its folder, fsynced unless ``sync``
        is False: then a power cut may leave the old file, the new one, or an empty one)."""
        payload = data.encode("utf-8") if isinstance(data, str) else data
        *folders, name = self.parts(relative)
        with self.folder(folders, create=True) as dir_fd:
            mode = _mode_of(name, dir_fd)
            temp = f".{name}.{secrets.token_hex(4)}.tmp"
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(temp, flags, mode, dir_fd=dir_fd)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(payload)
                    handle.flush()
                    if sync:
                        os.fsync(handle.fileno())
                os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temp, dir_fd=dir_fd)
                raise
            if sync:
                with contextlib.suppress(OSError):
                    os.fsync(dir_fd)

    def append(self, relative: str | PurePosixPath, data: str | bytes, sync: bool = True) -> None:
        """Append ``data`` (text as UTF-8) and, with ``sync``, fsync; earlier bytes are
        untouched. Without ``sync`` the bytes are in the OS (a killed process loses nothing)
        but reach the disk when the OS decides or at the next :meth:`fsync`."""
        payload = data.encode("utf-8") if isinstance(data, str) else data
        fd = self.open_fd(relative, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        with os.fdopen(fd, "ab") as handle:
            handle.write(payload)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())

    def fsync(self, relative: str | PurePosixPath) -> None:
        """Flush the file at ``relative`` to disk (what unsynced appends wrote included);
        FileNotFoundError when it is missing."""
        fd = self.open_fd(relative, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def open_fd(self, relative: str | PurePosixPath, flags: int, mode: int = 0o666) -> int:
        """A descriptor of the regular file at ``relative`` opened with ``flags`` (with
        ``O_CREAT`` its folders are made too); the caller closes it. FileNotFoundError when
        it is missing; PathEscapeError when it or a folder on the way is a symlink or it is
        not a regular file."""
        *folders, name = self.parts(relative)
        with self.folder(folders, create=bool(flags & os.O_CREAT)) as dir_fd:
            try:
                fd = os.open(name, flags | _NO_LINK, mode, dir_fd=dir_fd)
            except OSError as exc:
                raise _escape(exc, relative) from exc
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise PathEscapeError(f"{str(relative)!r} is not a regular file in the workspace")
        os.set_blocking(fd, True)
        return fd

    def truncate(self, relative: str | PurePosixPath, size: int, sync: bool = True) -> None:
        """Cut the file at ``relative`` to ``size`` bytes and (with ``sync``) fsync it."""
        fd = self.open_fd(relative, os.O_WRONLY)
        try:
            os.ftruncate(fd, size)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)

    def unlink(self, relative: str | PurePosixPath) -> None:
        """Remove the file at ``relative`` (a symlink there is removed, never followed);
        FileNotFoundError when it is missing."""
        *folders, name = self.parts(relative)
        with self.folder(folders) as dir_fd:
            os.unlink(name, dir_fd=dir_fd)

    def move(self, source: str | PurePosixPath, target: str | PurePosixPath) -> None:
        """Rename ``source`` to ``target`` (its folder made if needed), both below the base."""
        *src_folders, src_name = self.parts(source)
        *dst_folders, dst_name = self.parts(target)
        with self.folder(src_folders) as src_fd, self.folder(dst_folders, create=True) as dst_fd:
            os.replace(src_name, dst_name, src_dir_fd=src_fd, dst_dir_fd=dst_fd)

    def remove_temps(self, relative: str | PurePosixPath = ".", prefix: str = ".") -> list[str]:
        """Delete the temp files (names starting with ``prefix``) a crashed atomic write left in
        the folder ``relative`` (not recursively); returns their names. Call it where no other
        writer of those files can be running (under their lock)."""
        removed = []
        try:
            with self.folder(self.parts(relative)) as fd:
                for name in os.listdir(fd):
                    if not (TEMP_NAME.match(name) and name.startswith(prefix)):
                        continue
                    if _kind(_lstat(name, fd)) == "file":
                        with contextlib.suppress(FileNotFoundError):
                            os.unlink(name, dir_fd=fd)
                            removed.append(name)
        except (FileNotFoundError, PathEscapeError, NotADirectoryError):
            return []
        return removed


def _step(fd: int, part: str, create: bool) -> int:
    """Open the folder ``part`` in ``fd`` without following a symlink."""
    try:
        try:
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=fd)
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
    except OSError as exc:
        if exc.errno == errno.ENOTDIR and _is_link(part, fd):
            raise PathEscapeError(f"{part!r} is outside the workspace (a symlink)") from exc
        raise _escape(exc, part) from exc
    return child


def _is_link(name: str, fd: int) -> bool:
    try:
        return stat.S_ISLNK(_lstat(name, fd))
    except OSError:
        return False


def _escape(exc: OSError, relative: object) -> Exception:
    if exc.errno in _LINK_ERRORS:
        return PathEscapeError(f"{str(relative)!r} is outside the workspace (a symlink)")
    return exc


def _walk(fd: int, prefix: str) -> Iterator[str]:
    for entry in os.scandir(fd):
        path = f"{prefix}/{entry.name}" if prefix else entry.name
        if entry.is_dir(follow_symlinks=False) and entry.name != "locks":
            try:
                child = os.open(entry.name, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                continue  # swapped for a symlink or removed meanwhile
            try:
                yield from _walk(child, path)
            finally:
                os.close(child)
        elif entry.is_file(follow_symlinks=False) and not TEMP_NAME.match(entry.name):
            yield path


def _lstat(name: str, fd: int) -> int:
    return os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISDIR(mode):
        return "dir"
    return "file" if stat.S_ISREG(mode) else "other"


def _mode_of(name: str, dir_fd: int) -> int:
    # A replaced file keeps its mode; a new one gets the umask's default.
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
