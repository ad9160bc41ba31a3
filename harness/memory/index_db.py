"""Where ``memory_search``'s index database lives (:mod:`harness.memory.index`): opened as an
index (WAL, its schema checked), in this process's memory, or at a path the caller chose. A
workspace's own store, with its lock and symlink checks, is
:class:`harness.memory.tools.WorkspaceIndexStore`."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from harness.memory.index_store import check_schema

__all__ = ["DatabaseFile", "IndexStore", "MemoryStore", "connect"]


def connect(target: str | Path) -> sqlite3.Connection:
    """An index database (created when empty; DamagedError or sqlite3.DatabaseError when it
    is not one). WAL with ``synchronous=NORMAL``: a crash may lose the last batches, never
    tear the file; they are indexed again."""
    db = sqlite3.connect(target, isolation_level=None, check_same_thread=False, timeout=60.0)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        check_schema(db)
    except BaseException:
        db.close()
        raise
    return db


class IndexStore(Protocol):
    """Where the index database is: a session is one search (the store's lock held)."""

    def session(self) -> AbstractContextManager[sqlite3.Connection]: ...

    def move_aside(self) -> None: ...


class MemoryStore:
    """An index in this process's memory."""

    def __init__(self) -> None:
        self._db: sqlite3.Connection | None = None

    @contextlib.contextmanager
    def session(self) -> Iterator[sqlite3.Connection]:
        if self._db is None:
            self._db = connect(":memory:")
        yield self._db

    def move_aside(self) -> None:
        if self._db is not None:
            self._db.close()
        self._db = None


class DatabaseFile:
    """An index database at a path the caller chose (tests, benchmarks): no lock of its own
    beyond SQLite's, no symlink checks (a workspace uses
    :class:`harness.memory.tools.WorkspaceIndexStore`)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextlib.contextmanager
    def session(self) -> Iterator[sqlite3.Connection]:
        db = connect(self.path)
        try:
            yield db
        finally:
            db.close()

    def move_aside(self) -> None:
        os.replace(self.path, self.path.with_name(self.path.name + ".damaged"))
        for suffix in ("-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path.with_name(self.path.name + suffix))
