"""The parsed lines of an append-only file, read once each: a later read parses only what was
appended since.

The recall (:mod:`harness.compaction.guards.recall`) asks the session's store for every original
message before each request. The state store kept them only in its transcript file, so each
request read the whole file and parsed every line again: a cost per request that grew with the
session. :class:`AppendedLines` keeps the lines it parsed, with the byte offset after the last
whole line, and reads from there. Its answer is the full read's, line for line:

* lines are numbered as editors do (split at ``\\n`` only), and a line ``parse`` refuses (torn
  by a crash, not an entry) is skipped but keeps its number;
* the last line, when it has no newline yet (a write under way, or torn), is parsed on every read
  and never kept, so it is read again once it is whole;
* a file that was replaced (another inode), shrank, or no longer holds the first and the last
  whole lines read at their places is read again from the start; a missing file has no lines.
  (A rewrite in place that keeps both is not noticed: the stores' files are append-only, and
  a rewrite by an editor or a copy changes the first line or the inode.)

Every read returns the same parsed objects for the lines it had parsed before: treat them as
read-only.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import BinaryIO, Generic, TypeVar

__all__ = ["AppendedLines", "Opener"]

T = TypeVar("T")
Opener = Callable[[], AbstractContextManager[BinaryIO]]
"""Opens the file for reading (``WorkspacePath``'s symlink-safe reader, say); raises
FileNotFoundError when it is missing."""


class AppendedLines(Generic[T]):
    """``(line number, parse(line))`` of each line of a file ``parse`` accepts, read
    incrementally (see the module's docstring)."""

    def __init__(self, parse: Callable[[str], T | None]) -> None:
        self._parse = parse
        self._reset(None)

    def _reset(self, identity: tuple[int, int] | None) -> None:
        self._identity = identity
        self._offset = 0
        self._first = b""  # the first whole line read, its newline included
        self._last = b""  # the last whole line read, its newline included
        self._lines = 0
        self._found: list[tuple[int, T]] = []

    def read(self, open_file: Opener) -> list[tuple[int, T]]:
        try:
            with open_file() as file:
                stat = os.fstat(file.fileno())
                identity = (stat.st_dev, stat.st_ino)
                if identity != self._identity or stat.st_size < self._offset:
                    self._reset(identity)
                data = self._new_bytes(file, identity)
        except FileNotFoundError:
            self._reset(None)
            return []
        end = data.rfind(b"\n") + 1
        if end:
            self._take(data[:end])
        found = list(self._found)
        if end < len(data):  # an unfinished last line: parsed now, kept once it is whole
            tail = self._parse(data[end:].decode("utf-8", errors="replace"))
            if tail is not None:
                found.append((self._lines + 1, tail))
        return found

    def _new_bytes(self, file: BinaryIO, identity: tuple[int, int]) -> bytes:
        """The bytes after the last whole line read (all of them when the file is not the one
        read before)."""
        file.seek(self._offset - len(self._last))
        data = file.read()
        moved = data[: len(self._last)] != self._last
        if not moved and self._first:
            file.seek(0)
            moved = file.read(len(self._first)) != self._first
        if moved:  # rewritten in place: start over
            self._reset(identity)
            file.seek(0)
            return file.read()
        return data[len(self._last) :]

    def _take(self, whole: bytes) -> None:
        """Parse and keep ``whole`` lines (each ending with a newline)."""
        for line in whole.decode("utf-8", errors="replace").split("\n")[:-1]:
            self._lines += 1
            parsed = self._parse(line)
            if parsed is not None:
                self._found.append((self._lines, parsed))
        if not self._offset:
            self._first = whole[: whole.find(b"\n") + 1]
        self._offset += len(whole)
        self._last = whole[whole.rfind(b"\n", 0, len(whole) - 1) + 1 :]
