"""The memory workspace of one user: MEMORY.md, the daily ledger, the archive, the watermark.

::

    <root>/<user_id>/
    ├── MEMORY.md                   L2: rewritten whole (atomically), injected at call start
    ├── memory/
    │   ├── YYYY-MM-DD.md           L1: append only, "## Memory Flush — <instant>" sections
    │   ├── archive/                daily files older than the retention period
    │   └── .consolidation_state    the watermark: one instant, 30 bytes
    ├── sessions/<session>.jsonl    session transcripts
    ├── locks/                      OS file locks: memory.lock, consolidation.lock, <session>.lock
    ├── .memory_index/index.sqlite  memory_search's index (SQLite, WAL)
    └── large_tool_results/         offloaded tool results

Daily files are named by the UTC date of the entries they hold.

Entry headers come only from the harness: a line of written text (a flush reply, a
``memory_save``) that would read as a header is escaped with a backslash
(``\\## Memory Flush — …``) before it is appended, and a header stamped on another day than
its file's name (planted before that escape existed, or by hand: the harness appends each
entry to its own day's file) is not an entry start: it stays text of the entry above it. Nor is
a header stamped later than now on the workspace's clock (planted on the file's own day with a
later time, by a tool that writes files, say): the harness stamps each entry when it appends
it, so such a header would only move the watermark past the facts written before that time. A
watermark later than the newest entry (so also one later than now) is reset, with a warning,
before a consolidation reads it (:meth:`MemoryWorkspace.clamp_watermark`), so it can never
freeze consolidation: reset to the start, since nothing says which entries were merged, so every
entry is consolidated again rather than any skipped.

Nor does written text carry the tags that frame injected memory: every write of a flush reply,
a ``memory_save`` or a consolidation's MEMORY.md escapes the ``<`` of a ``HARNESS_CONTEXT`` or
``memory_context`` tag in it (``&lt;/memory_context>``, :mod:`harness.memory.frame`), with a
warning, so no memory file can end the frame it is injected in. The line is kept, escaped, not
dropped: the facts on it were acknowledged and stay.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from harness.errors import ConfigError, MemoryStoreError, PathEscapeError
from harness.fs.locks import file_lock
from harness.fs.path import WorkspacePath
from harness.fs.root import SafeRoot, check_name
from harness.memory.clock import (
    EPOCH,
    NanoClock,
    SystemClock,
    format_instant,
    parse_instant,
    peek,
    utc_date,
)
from harness.memory.frame import has_frame_tag, neutralise_frame_tags

__all__ = ["DailyEntry", "MemoryWorkspace"]

logger = logging.getLogger("harness.memory")

ENTRY_HEADER = re.compile(r"^## (Memory Flush|Memory Save) — (\S+)$")
HEADER_LIKE = re.compile(r"^(?=## Memory (?:Flush|Save)\b)", re.MULTILINE)
"""Where a line of written text starts like an entry header: escaped before it is appended."""
DAILY_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")
MEMORY = "MEMORY.md"
WATERMARK = "memory/.consolidation_state"


@dataclass(frozen=True)
class DailyEntry:
    """One section of a daily file."""

    kind: str
    """``Memory Flush`` or ``Memory Save``."""
    instant: int
    """When it was written, in nanoseconds since the epoch (from its header)."""
    text: str
    """The section body."""
    file: str
    """The daily file, relative to the user's folder."""
    line: int
    """The 1-based line number of the section header."""

    @property
    def header(self) -> str:
        return f"## {self.kind} — {format_instant(self.instant)}"


class MemoryWorkspace:
    """Reads and writes one user's memory files; every whole-file write is atomic.

    Every path is opened below the user's folder without following symlinks
    (:class:`~harness.fs.root.SafeRoot`): a symlinked ``MEMORY.md``, ``memory/`` or daily
    file reads as absent and is never written through. MEMORY.md and the watermark change only
    under the workspace's memory lock (:meth:`memory_lock`), consolidations one at a time under
    its consolidation lock (:meth:`consolidation_lock`); both are OS file locks, so they hold
    across processes. Opening a workspace removes the temp files a crashed write left.
    """

    def __init__(
        self, root: Path, user_id: str = "default", clock: NanoClock | None = None
    ) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", user_id):
            raise ConfigError(f"user id {user_id!r} may hold only letters, digits, - _ and .")
        check_name("user id", user_id)
        self.base = Path(root) / user_id
        self.fs = SafeRoot(self.base)
        self.clock = clock or SystemClock()
        self.memory_file = self.base / MEMORY
        self.daily_dir = self.base / "memory"
        self.archive_dir = self.daily_dir / "archive"
        self.watermark_file = self.base / WATERMARK
        self.sessions_dir = self.base / "sessions"
        self.lock_timeout = 600.0
        """Seconds to wait for a lock another process holds before giving up."""
        if self.base.is_dir():
            self.remove_temps()

    def relative(self, path: Path) -> str:
        return path.relative_to(self.base).as_posix()

    @contextlib.contextmanager
    def memory_lock(self) -> Iterator[None]:
        """Held while MEMORY.md or the watermark is read-modified-written (short); reentrant
        within a thread, so a holder may call :meth:`write_memory` and
        :meth:`write_watermark`."""
        with file_lock(self._lock_file("memory"), self.lock_timeout, "MEMORY.md"):
            yield

    @contextlib.contextmanager
    def consolidation_lock(self) -> Iterator[None]:
        """Held for a whole consolidation (model call included): one at a time per workspace."""
        lock = self._lock_file("consolidation")
        with file_lock(lock, self.lock_timeout, "the consolidation of this workspace"):
            yield

    def _lock_file(self, name: str) -> WorkspacePath:
        return WorkspacePath(self.fs, f"locks/{name}.lock")  # a symlinked locks/ is refused

    def remove_temps(self) -> list[str]:
        """Delete temp files a crashed write of MEMORY.md or the watermark left behind."""
        with self.memory_lock():
            removed = self.fs.remove_temps(".") + self.fs.remove_temps("memory")
        for name in removed:
            logger.warning("%s: removed %s, left by an interrupted write", self.base, name)
        return removed

    def read_memory(self) -> str:
        """MEMORY.md's text; empty when it does not exist or is not a regular file (a symlink
        is never followed)."""
        return self._read_optional(MEMORY)

    def write_memory(self, text: str) -> None:
        """Replace MEMORY.md whole (a symlink in its place is replaced, not followed), its
        memory-frame tags escaped."""
        text = self._unframed(text, MEMORY)
        with self.memory_lock():
            self.fs.write_atomic(MEMORY, text)

    def append_memory(self, text: str) -> None:
        """Add ``text`` (its memory-frame tags escaped) at the end of MEMORY.md, read and
        written under the memory lock."""
        text = self._unframed(text, MEMORY)
        with self.memory_lock():
            memory = self.read_memory()
            separator = "" if not memory or memory.endswith("\n") else "\n"
            whole = f"{memory}{separator}\n{text}\n" if memory else f"{text}\n"
            self.fs.write_atomic(MEMORY, whole)

    def holds(self, memory: str, watermark: int) -> bool:
        """Whether MEMORY.md and the watermark are still ``memory`` and ``watermark``: the
        compare of a compare-and-swap, made under :meth:`memory_lock`."""
        return self.read_watermark() == watermark and self.read_memory() == memory

    def append_entry(self, kind: str, text: str) -> DailyEntry:
        """Append a ``## <kind> — <instant>`` section to today's daily file (header-like lines
        and memory-frame tags of ``text`` escaped)."""
        if kind not in ("Memory Flush", "Memory Save"):
            raise ConfigError(f"unknown daily entry kind {kind!r}")
        instant = self.clock()
        relative = f"memory/{utc_date(instant)}.md"
        line = len(self.read_lines(relative)) + 2  # the section starts with a blank line
        text = self._unframed(neutralise_headers(text.strip()), relative)
        entry = DailyEntry(kind, instant, text, relative, line)
        self.fs.append(relative, f"\n{entry.header}\n{entry.text}\n")
        return entry

    @staticmethod
    def _unframed(text: str, relative: str) -> str:
        """``text`` with its memory-frame tags escaped, and a warning when it held one."""
        if not has_frame_tag(text):
            return text
        logger.warning(
            "%s: text to be written holds a tag of the memory frame (HARNESS_CONTEXT or "
            "memory_context); written with its '<' escaped as '&lt;'",
            relative,
        )
        return neutralise_frame_tags(text)

    def read_lines(self, relative: str) -> list[str]:
        """A workspace file's lines (split at ``\\n`` only); none when it is missing or not a
        regular file."""
        text = self._read_optional(relative)
        if text.endswith("\n"):
            text = text[:-1]
        return text.split("\n") if text else []

    def daily_files(self) -> list[Path]:
        """Daily files, archived ones included, sorted by path (symlinks are left out)."""
        found = self.fs.files("memory")
        return sorted(self.base / f for f in found if DAILY_NAME.match(Path(f).name))

    def entries(self, since: int = EPOCH) -> list[DailyEntry]:
        """Daily entries written after ``since``, oldest first."""
        now = peek(self.clock)  # a header later than this was not stamped by the harness
        found = [
            e for path in self.daily_files() for e in self._parse(path, now) if e.instant > since
        ]
        return sorted(found, key=lambda e: (e.instant, e.file, e.line))

    def _parse(self, path: Path, now: int) -> list[DailyEntry]:
        lines = self.read_lines(self.relative(path))
        # A header cut short by a crash mid-append is not an entry start: the append that wrote
        # it failed, so nothing acknowledged is lost, and later entries stay readable. Nor is a
        # header stamped on another day than the file's: the harness appends each entry to the
        # file named by its own date, so such a line was planted (by text written before
        # headers were escaped, or by hand) and stays text of the entry above it.
        day = path.stem
        starts = []
        for i, line in enumerate(lines):
            instant = _header_instant(line)
            if instant is None:
                continue
            if utc_date(instant) != day:
                logger.warning(
                    "%s:%d: a header stamped %s is not an entry of this day's file; read as text",
                    self.relative(path),
                    i + 1,
                    format_instant(instant),
                )
                continue
            if instant > now:
                logger.warning(
                    "%s:%d: a header stamped %s is later than now (%s); read as text",
                    self.relative(path),
                    i + 1,
                    format_instant(instant),
                    format_instant(now),
                )
                continue
            starts.append(i)
        entries = []
        for n, start in enumerate(starts):
            kind, stamp = ENTRY_HEADER.match(lines[start]).groups()  # type: ignore[union-attr]
            end = starts[n + 1] if n + 1 < len(starts) else len(lines)
            body = "\n".join(lines[start + 1 : end]).strip()
            entries.append(
                DailyEntry(kind, parse_instant(stamp), body, self.relative(path), start + 1)
            )
        return entries

    def read_watermark(self) -> int:
        """The instant up to which daily entries were consolidated; EPOCH before the first run."""
        text = self._read_optional(WATERMARK)
        if not text:
            return EPOCH
        try:
            return parse_instant(text)
        except ValueError as exc:
            raise MemoryStoreError(f"{self.watermark_file} is damaged: {exc}") from exc

    def clamp_watermark(self) -> int:
        """The watermark, first reset (rewritten, with a warning) to EPOCH when it is later
        than the newest entry: a watermark set past the ledger (in the year 2999, by hand or by
        a planted header) would otherwise keep every later fact from consolidating. A real
        watermark is always the instant of an entry it merged, so one past them all says
        nothing about which entries were merged: clamping it to the newest entry would skip the
        entries written since it was planted, so every entry is consolidated again instead (in
        batches; MEMORY.md already holding their facts, the rewrite keeps them once).
        Read-modified-written under the memory lock."""
        with self.memory_lock():
            current = self.read_watermark()
            if current == EPOCH:
                return current
            entries = self.entries()
            newest = entries[-1].instant if entries else EPOCH
            if current <= newest:
                return current
            logger.warning(
                "%s: the watermark %s is later than the newest daily entry (%s); reset, so "
                "every entry is consolidated again and none is skipped",
                self.watermark_file,
                format_instant(current),
                format_instant(newest) if entries else "none",
            )
            self.fs.write_atomic(WATERMARK, format_instant(EPOCH))
            return EPOCH

    def write_watermark(self, instant: int) -> None:
        """Advance the watermark; it never moves backwards."""
        with self.memory_lock():
            current = self.read_watermark()
            if instant < current:
                raise MemoryStoreError(
                    f"watermark would move backwards from {format_instant(current)} "
                    f"to {format_instant(instant)}"
                )
            self.fs.write_atomic(WATERMARK, format_instant(instant))

    def archive_old(self, retention_days: int = 90) -> list[Path]:
        """Move daily files older than ``retention_days`` into ``memory/archive/``."""
        today = datetime.fromtimestamp(self.clock() // 1_000_000_000, UTC).date()
        limit = (today - timedelta(days=retention_days)).isoformat()
        moved = []
        with self.consolidation_lock():
            for path in self.daily_files():
                if path.parent == self.daily_dir and path.stem < limit:
                    target = self.archive_dir / path.name
                    self.fs.move(self.relative(path), self.relative(target))
                    moved.append(target)
        return moved

    def _read_optional(self, relative: str) -> str:
        try:
            return self.fs.read_text(relative)
        except (FileNotFoundError, IsADirectoryError):
            return ""
        except PathEscapeError as exc:
            logger.warning("%s: %s; read as empty", self.base, exc)
            return ""


def neutralise_headers(text: str) -> str:
    """``text`` with every line that starts like an entry header escaped by a backslash, so
    that only the harness starts an entry."""
    return HEADER_LIKE.sub("\\\\", text)


def _header_instant(line: str) -> int | None:
    """The instant of an entry header line, or None when the line is not one."""
    match = ENTRY_HEADER.match(line)
    if not match:
        return None
    try:
        return parse_instant(match.group(2))
    except ValueError:
        return None
