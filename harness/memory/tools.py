"""The memory tools: memory_save, memory_search, read_file, list_files, session_search.

File tools are confined to the user's workspace folder: a path that leaves it, through ``..``
or through a symlink (even one swapped in while the tool runs), gets a clear error instead of a
file; paths are opened component by component without following symlinks
(:mod:`harness.fs.root`). ``read_file`` reads only the lines it returns. ``session_search``
goes through the session stores' :class:`~harness.store.protocol.History` protocol
(:func:`~harness.store.sessions.saved_histories`), so it finds state-file and event-log
sessions alike without knowing either format.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import BinaryIO

from harness.fs.locks import file_lock
from harness.fs.path import WorkspacePath
from harness.memory.index import MemoryIndex, connect
from harness.memory.workspace import MemoryWorkspace
from harness.secrets import redact_for_storage
from harness.store.protocol import SEARCH_LIMIT, search_histories
from harness.store.sessions import saved_histories
from harness.tools import Tool

__all__ = ["INDEX_FOLDER", "MemoryTools", "WorkspaceIndexStore"]

INDEX_FOLDER = ".memory_index"
"""memory_search's index, beside MEMORY.md (left out of list_files)."""

MAX_READ_LINES = 200
MAX_LINE_BYTES = 8_192
"""A longer line is cut when shown by read_file."""


class MemoryTools:
    """Builds the memory tools for one workspace."""

    def __init__(self, workspace: MemoryWorkspace) -> None:
        self.workspace = workspace
        self.index = MemoryIndex(self._open, WorkspaceIndexStore(workspace))
        """memory_search's index, kept between queries (:mod:`harness.memory.index`)."""

    def tools(self) -> list[Tool]:
        return [
            Tool.from_function(self.memory_save, name="memory_save"),
            Tool.from_function(self.memory_search, name="memory_search"),
            Tool.from_function(self.read_file, name="read_file"),
            Tool.from_function(self.list_files, name="list_files"),
            Tool.from_function(self.session_search, name="session_search"),
        ]

    def memory_save(self, content: str) -> str:
        """Save durable facts (a markdown bullet list) to MEMORY.md and today's ledger."""
        text = redact_for_storage(content.strip(), "memory_save")  # no key reaches memory files
        if not text:
            return "Error: nothing to save"
        self.workspace.append_memory(text)
        self.workspace.append_entry("Memory Save", text)
        count = max(1, sum(line.lstrip().startswith("-") for line in text.splitlines()))
        return f"Saved {count} memor{'y' if count == 1 else 'ies'} to MEMORY.md"

    def memory_search(self, query: str) -> str:
        """Search MEMORY.md and the daily ledger; results cite Source: <file>#<line>."""
        hits = self.index.search(self.memory_files(), query)
        if not hits:
            return f"No matching memories found for: {query}"
        lines = [f"Source: {h.file}#{h.line}: {h.text}" for h in hits]
        return f"Found {len(hits)} matches:\n\n" + "\n".join(lines)

    def read_file(self, path: str, offset: int = 1, limit: int = MAX_READ_LINES) -> str:
        """Read a workspace file with line numbers, from line ``offset`` (1-based)."""
        start = max(offset, 1)
        try:
            with self.workspace.fs.open_read(path) as handle:
                chosen = _read_window(handle, start, max(limit, 1))
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return f"Error: {path} is not a file in the workspace"
        return "\n".join(f"{start + i}|{line}" for i, line in enumerate(chosen)) or "(empty)"

    def list_files(self, path: str = ".") -> str:
        """List a workspace folder (recursively), one relative path per line."""
        try:
            found = self.workspace.fs.files(path, strict=True)
        except (FileNotFoundError, NotADirectoryError):
            return f"Error: {path} is not a folder in the workspace"
        found = [f for f in found if not f.startswith(f"{INDEX_FOLDER}/")]  # a cache, not memory
        return "\n".join(found) or "(empty)"

    def session_search(self, query: str) -> str:
        """Search earlier sessions' transcripts for a phrase."""
        # The docstring is the tool's description the model sees (recorded in the cassettes):
        # it stays as it was, though event logs are searched too.
        sessions = saved_histories(self.workspace.fs)  # read-only, never through a symlink
        hits = search_histories(sessions, query, limit=SEARCH_LIMIT)
        if not hits:
            return f"No matching session entries for: {query}"
        return "\n".join(f"[{h.file}#{h.line}] {h.text}" for h in hits)

    def memory_files(self) -> list[tuple[Path, str]]:
        """MEMORY.md and the daily files, each as (its relative path, the name results show)."""
        files = ["MEMORY.md", *(self.workspace.relative(p) for p in self.workspace.daily_files())]
        return [(Path(relative), relative) for relative in files]

    def _open(self, relative: Path) -> AbstractContextManager[BinaryIO]:
        return self.workspace.fs.open_read(relative.as_posix())  # never through a symlink


class WorkspaceIndexStore:
    """memory_search's index database, ``<user>/.memory_index/index.sqlite``.

    A search holds the workspace's ``locks/memory_index.lock`` (an OS file lock,
    :func:`harness.fs.locks.file_lock`), so processes search and grow the index one at a time;
    SQLite's WAL keeps the file whole through a crash. SQLite opens its files by path, so
    before each connection the folder is opened component by component without following a
    symlink (:class:`~harness.fs.root.SafeRoot`, made if missing) and a symlink or other
    non-file in place of the database or its ``-wal``/``-shm``/``-journal`` files is removed
    (the link, never its target): a swapped folder or file is refused, not written through. A
    damaged database is renamed ``index.sqlite.damaged`` (one kept) and its side files removed.
    The per-file cache files (``*.idx``) of the index before this one are deleted."""

    NAME = "index.sqlite"
    SIDE = ("-wal", "-shm", "-journal")

    def __init__(self, workspace: MemoryWorkspace) -> None:
        self.fs = workspace.fs
        self.timeout = workspace.lock_timeout

    @contextlib.contextmanager
    def session(self) -> Iterator[sqlite3.Connection]:
        lock = WorkspacePath(self.fs, "locks/memory_index.lock")
        with file_lock(lock, self.timeout, "the memory index"):
            db = connect(self._checked_path())
            try:
                yield db
            finally:
                db.close()

    def _checked_path(self) -> Path:
        with self.fs.folder([INDEX_FOLDER], create=True) as fd:
            for name in os.listdir(fd):
                mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
                ours = name == self.NAME or name in {self.NAME + s for s in self.SIDE}
                if (ours and not stat.S_ISREG(mode)) or name.endswith(".idx"):
                    os.unlink(name, dir_fd=fd)  # a planted link, or the old cache
        return self.fs.base / INDEX_FOLDER / self.NAME

    def move_aside(self) -> None:
        folder = f"{INDEX_FOLDER}/{self.NAME}"
        with contextlib.suppress(FileNotFoundError):
            self.fs.move(folder, f"{folder}.damaged")
        for suffix in self.SIDE:
            with contextlib.suppress(FileNotFoundError):
                self.fs.unlink(folder + suffix)


def _read_window(handle: BinaryIO, start: int, limit: int) -> list[str]:
    """Lines ``start .. start+limit-1`` read from ``handle`` without reading past the last of
    them. A line longer than MAX_LINE_BYTES is shown cut and ends the window (the rest of it
    is not read); lines before ``start`` are skipped whatever their length."""
    chosen: list[str] = []
    number = 0
    while len(chosen) < limit:
        raw = handle.readline(MAX_LINE_BYTES)
        if not raw:
            break
        cut = len(raw) == MAX_LINE_BYTES and not raw.endswith(b"\n")
        if number + 1 < start:
            if cut:
                _skip_line(handle)
            number += 1
            continue
        number += 1
        text = raw.decode("utf-8", errors="replace").removesuffix("\n")
        if cut:
            chosen.append(f"{text} … (line cut at {MAX_LINE_BYTES} bytes)")
            break
        chosen.append(text)
    return chosen


def _skip_line(handle: BinaryIO) -> None:
    while True:
        chunk = handle.readline(MAX_LINE_BYTES)
        if not chunk or chunk.endswith(b"\n"):
            return
