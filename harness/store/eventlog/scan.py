"""Reading the log's JSONL bytes: complete lines become events, a torn last line is set apart.

A writer appends one whole line (ending in ``\\n``) per event, so bytes after the last newline
are a line still being written or one a crash cut short; a complete last line that does not
parse is a crash too (the kernel wrote the newline before the rest reached the disk). Neither
is corruption: the reader leaves it out and says so. A bad line anywhere else is.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path

from harness import json_depth
from harness.errors import EventLogError, LogCorruptError
from harness.fs.path import WorkspacePath
from harness.store.eventlog import marks
from harness.store.eventlog.events import Event

__all__ = ["Scan", "parse_line", "read_at", "scan_bytes", "scan_file"]


@dataclass
class Scan:
    """What a read found."""

    events: list[Event] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)
    """What was left out (a torn or unreadable last line), one sentence each."""
    good_bytes: int = 0
    """How many bytes (from where the read began) hold the complete, readable lines."""
    torn: bool = False
    """True when bytes after ``good_bytes`` were left out."""
    last_lines: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    """Event type → (the first seq of the line, the line) of the last line holding an
    event of that type: a snapshot keeps those lines as the file has them."""
    marks: list[tuple[int, int]] = field(default_factory=list)
    """``(seq, offset from where the read began)`` of the lines starting at each multiple
    of :data:`~harness.store.eventlog.marks.STRIDE` seqs (:mod:`~harness.store.eventlog.marks`)."""


def scan_file(path: Path | WorkspacePath) -> Scan:
    """Read the whole log at ``path`` (an empty scan when it does not exist) without following
    a symlink (:class:`~harness.fs.path.WorkspacePath`)."""
    file = WorkspacePath.of(path)
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        return Scan()
    return scan_bytes(file.path, raw, first_seq=0)


def read_at(fd: int, offset: int, size: int) -> bytes:
    """Up to ``size`` bytes of the open file ``fd`` from ``offset`` (fewer at its end)."""
    chunks = []
    while size > 0:
        chunk = os.pread(fd, size, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def scan_bytes(path: Path, raw: bytes, first_seq: int) -> Scan:
    """Parse ``raw`` (the log's bytes from the line holding ``first_seq`` on)."""
    lines = raw.split(b"\n")
    tail = lines.pop()  # the bytes after the last newline: empty unless an append is torn
    scan = Scan()
    if tail:
        number = first_seq + len(lines) + 1
        scan.recovered.append(f"dropped a torn last line {number} ({len(tail)} bytes, no newline)")
    elif lines and not _readable(lines[-1]):
        dropped = lines.pop()
        tail = dropped + b"\n"
        number = first_seq + len(lines) + 1
        scan.recovered.append(f"dropped an unreadable last line {number} ({len(dropped)} bytes)")
    scan.events = [parse_line(path, first_seq + i + 1, line) for i, line in enumerate(lines)]
    scan.marks = line_marks(lines, first_seq)
    scan.last_lines = {e.type: (e.seq, line) for e, line in zip(scan.events, lines, strict=True)}
    scan.good_bytes = len(raw) - len(tail)
    scan.torn = bool(tail)
    return scan


def line_marks(lines: list[bytes], first_seq: int) -> list[tuple[int, int]]:
    """The marks of ``lines`` (one event each, the first ``first_seq``, read from offset 0):
    the offsets of the lines whose seq is a multiple of the stride."""
    stride = marks.STRIDE
    first = -(-first_seq // stride) * stride - first_seq  # index of the first marked line
    if first >= len(lines):
        return []
    starts = [0, *accumulate(len(line) + 1 for line in lines[: len(lines) - 1])]
    return [(first_seq + i, starts[i]) for i in range(first, len(lines), stride)]


def _readable(line: bytes) -> bool:
    try:
        json_depth.loads(line.decode("utf-8"))
    # UnicodeDecodeError and JSONDecodeError are ValueErrors; a line nested too deep for the
    # parser (planted by hand: ctxlab never writes one) is as unreadable
    except (ValueError, RecursionError):
        return False
    return True


def parse_line(path: Path, number: int, line: bytes) -> Event:
    """Line ``number`` (from 1) of the log at ``path``: its event, which must be event
    ``number - 1``; LogCorruptError otherwise."""
    try:
        event = Event.from_json(line.decode("utf-8"))
    except (ValueError, TypeError, RecursionError, EventLogError) as exc:
        raise LogCorruptError(f"{path}:{number}: unreadable event: {exc}") from exc
    if event.seq != number - 1:
        raise LogCorruptError(f"{path}:{number}: event seq {event.seq}, expected {number - 1}")
    return event
