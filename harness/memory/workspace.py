"""The memory workspace of one user: MEMORY.md, the daily ledger, the archive, the watermark.

::

    <root>/<user_id>/
    ├── MEMORY.md                   L2: rewritten whole (atomically), injected at call start
    ├── memory/
    │   ├── YYYY-MM-DD.md           L1: append only, "## Memory Flush — <instant>" sections
    │   ├── archive/                daily files older than the retention period
    │   └── .consolidation_state    the watermark: one instant, 30 bytes
    ├── sessions/<session>.jsonl    session transcripts
    └── large_tool_results/         offloaded tool results

Daily files are named by the UTC date of the entries they hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from harness.errors import ConfigError, MemoryStoreError
from harness.files import append_text, read_lines, read_text, write_atomic
from harness.memory.clock import EPOCH, Clock, SystemClock, format_instant, parse_instant, utc_date

__all__ = ["DailyEntry", "MemoryWorkspace"]

ENTRY_HEADER = re.compile(r"^## (Memory Flush|Memory Save) — (\S+)$")
DAILY_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")


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
    """Reads and writes one user's memory files; every whole-file write is atomic."""

    def __init__(self, root: Path, user_id: str = "default", clock: Clock | None = None) -> None:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", user_id) or user_id in (".", ".."):
            raise ConfigError(f"user id {user_id!r} may hold only letters, digits, - _ and .")
        self.base = Path(root) / user_id
        self.clock = clock or SystemClock()
        self.memory_file = self.base / "MEMORY.md"
        self.daily_dir = self.base / "memory"
        self.archive_dir = self.daily_dir / "archive"
        self.watermark_file = self.daily_dir / ".consolidation_state"
        self.sessions_dir = self.base / "sessions"

    def relative(self, path: Path) -> str:
        return path.relative_to(self.base).as_posix()

    def read_memory(self) -> str:
        """MEMORY.md's text; empty when it does not exist."""
        return read_text(self.memory_file) if self.memory_file.exists() else ""

    def write_memory(self, text: str) -> None:
        """Replace MEMORY.md whole."""
        write_atomic(self.memory_file, text)

    def append_entry(self, kind: str, text: str) -> DailyEntry:
        """Append a ``## <kind> — <instant>`` section to today's daily file."""
        if kind not in ("Memory Flush", "Memory Save"):
            raise ConfigError(f"unknown daily entry kind {kind!r}")
        instant = self.clock()
        path = self.daily_dir / f"{utc_date(instant)}.md"
        line = _line_count(path) + 2  # the section starts with a blank line
        entry = DailyEntry(kind, instant, text.strip(), self.relative(path), line)
        append_text(path, f"\n{entry.header}\n{entry.text}\n")
        return entry

    def daily_files(self) -> list[Path]:
        """Daily files, archived ones included, sorted by path."""
        if not self.daily_dir.exists():
            return []
        files = [
            p
            for p in self.daily_dir.rglob("*.md")
            if DAILY_NAME.match(p.name) and not p.is_symlink()  # never read outside the workspace
        ]
        return sorted(files)

    def entries(self, since: int = EPOCH) -> list[DailyEntry]:
        """Daily entries written after ``since``, oldest first."""
        found = [e for path in self.daily_files() for e in self._parse(path) if e.instant > since]
        return sorted(found, key=lambda e: (e.instant, e.file, e.line))

    def _parse(self, path: Path) -> list[DailyEntry]:
        lines = read_lines(path)
        # A header cut short by a crash mid-append is not an entry start: the append that wrote
        # it failed, so nothing acknowledged is lost, and later entries stay readable.
        starts = [i for i, line in enumerate(lines) if _is_header(line)]
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
        if not self.watermark_file.exists():
            return EPOCH
        text = self.watermark_file.read_text(encoding="utf-8")
        try:
            return parse_instant(text)
        except ValueError as exc:
            raise MemoryStoreError(f"{self.watermark_file} is damaged: {exc}") from exc

    def write_watermark(self, instant: int) -> None:
        """Advance the watermark; it never moves backwards."""
        current = self.read_watermark()
        if instant < current:
            raise MemoryStoreError(
                f"watermark would move backwards from {format_instant(current)} "
                f"to {format_instant(instant)}"
            )
        write_atomic(self.watermark_file, format_instant(instant))

    def archive_old(self, retention_days: int = 90) -> list[Path]:
        """Move daily files older than ``retention_days`` into ``memory/archive/``."""
        today = datetime.fromtimestamp(self.clock() // 1_000_000_000, UTC).date()
        limit = (today - timedelta(days=retention_days)).isoformat()
        moved = []
        for path in self.daily_files():
            if path.parent == self.daily_dir and path.stem < limit:
                target = self.archive_dir / path.name
                target.parent.mkdir(parents=True, exist_ok=True)
                path.replace(target)
                moved.append(target)
        return moved


def _is_header(line: str) -> bool:
    match = ENTRY_HEADER.match(line)
    if not match:
        return False
    try:
        parse_instant(match.group(2))
    except ValueError:
        return False
    return True


def _line_count(path: Path) -> int:
    if not path.exists():
        return 0
    return len(read_lines(path))
