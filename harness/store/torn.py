"""Bytes cut from the end of an append-only file are moved aside, never deleted.

A crash mid-append leaves a torn last line (no newline), and a bad byte can leave the last
complete line unreadable. Before the next line is appended those bytes must go (appended onto
them, the next line would be unreadable too), but they may hold an acknowledged event, so
:func:`set_aside` first appends them, fsynced, to ``<file>.corrupt`` beside the file (one
header line saying where they came from, then the bytes as they were), and only then cuts the
file. Nothing the file held is ever lost: it is in the file or in its ``.corrupt`` copy.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from harness.fs.path import WorkspacePath

__all__ = ["CORRUPT_SUFFIX", "corrupt_copy", "set_aside", "torn_tail"]

CORRUPT_SUFFIX = ".corrupt"


def corrupt_copy(file: WorkspacePath) -> WorkspacePath:
    """Where the bytes cut from ``file`` are kept."""
    parent, _, name = file.relative.rpartition("/")
    relative = f"{parent}/{name}{CORRUPT_SUFFIX}" if parent else f"{name}{CORRUPT_SUFFIX}"
    return WorkspacePath(file.root, relative)


def set_aside(file: WorkspacePath, offset: int, data: bytes, reason: str, fd: int = -1) -> None:
    """Append ``data`` (``file``'s bytes from ``offset`` to its end) to its ``.corrupt``
    copy, fsynced, then cut ``file`` at ``offset`` (through ``fd`` when the caller holds the
    file open under a lock) and fsync it."""
    stamp = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    header = f"# {stamp} {file.name} offset {offset} ({len(data)} bytes): {reason}\n"
    corrupt_copy(file).append(header.encode("utf-8") + data + b"\n", sync=True)
    if fd >= 0:
        os.ftruncate(fd, offset)
        os.fsync(fd)
    else:
        file.truncate(offset)


def torn_tail(raw: bytes) -> int:
    """How many bytes at the end of ``raw`` follow its last newline (0: none)."""
    return len(raw) - (raw.rfind(b"\n") + 1)
