"""A snapshot of an event log's fold, so a reopen reads the snapshot and the tail, never the
events before it.

The snapshot is a side file beside the log: ``<log>.snapshot`` for ctxlab's own format and
``<log>.ctxlab-snapshot`` for a DeepSeek-Harness file (a *sidecar*: dsh reads and writes only
its own file, which stays exactly what dsh writes). The log itself is never changed by it. Its
first line is the SHA-256 of everything after it (a file torn by a crash, or a flipped byte
anywhere, fails it: the snapshot is *torn*); then a JSON header line, then the log's lines
holding the events the fold keeps whole (the latest event of each type), as the log has them,
so they read back as a replay reads them. The header names what it covers:

* ``seq``: how many events the snapshot covers; ``offset``: where event ``seq`` starts in the
  log (the byte after the newline of the line holding event ``seq - 1``);
* ``guard``: the SHA-256 of the log's last up-to-256 bytes before ``offset`` (the end of the
  last line folded), and ``head``: the SHA-256 of the log's first line (its session header or
  first event): a log rewritten, truncated by a power cut or replaced since, or a snapshot
  copied beside another session, has other bytes there: the snapshot is *stale*;
* ``generation``, ``nodes`` (the surface's seqs, as runs ``[first, count]``), ``latest``
  (type → seq), ``lines`` (the first seq of each line after the header), ``marks``
  (:mod:`~harness.store.eventlog.marks`: where the events sit in the log) and ``codec`` (what
  the format's reader learned, e.g. dsh's header and turn counters).

No surface event is copied: a reopen restores the fold from the header, and the events before
``offset`` are read from the log when first asked for (by their marks: one stride of lines,
:mod:`~harness.store.eventlog.prefix`). So the snapshot's size, its write and a reopen cost
O(runs + events ÷ stride + tail), not O(history), and a reopen's memory does not grow with the
events before it. A snapshot that fails any check is ignored with a warning and the log is
replayed from the start, which stays the reference (:meth:`EventLog.replay`); a snapshot is
only a cache, so it is written by temp file + rename without an fsync (after a power cut it is
at worst stale or torn, and ignored). :mod:`tests.test_eventlog_snapshot` checks snapshot +
tail ≡ full replay on random logs, with snapshots torn at every byte and a writer killed with
SIGKILL.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness import json_depth
from harness.errors import EventLogError
from harness.fs.path import WorkspacePath
from harness.store.eventlog.codec import make_codec
from harness.store.eventlog.events import Event
from harness.store.eventlog.scan import read_at

__all__ = [
    "DEFAULT_SNAPSHOT_EVERY",
    "SIDECAR_SUFFIX",
    "SNAPSHOT_SUFFIX",
    "NodeRuns",
    "Snapshot",
    "read_snapshot",
    "snapshot_path",
    "write_snapshot",
]

logger = logging.getLogger("harness.store.eventlog")

SNAPSHOT_FORMAT = 2
"""2: no surface event copied (1 copied every node; a format-1 file is ignored, once)."""
SNAPSHOT_SUFFIX = ".snapshot"
SIDECAR_SUFFIX = ".ctxlab-snapshot"
"""A dsh file's snapshot: a name DeepSeek-Harness never reads or writes."""
DEFAULT_SNAPSHOT_EVERY = 1000
"""A snapshot is written at each compaction's end and once this many events were appended
since the last one, so a reopen's tail is at most this long. A snapshot is a header of
O(runs + events ÷ 1024) (about 150 bytes plus the latest events at a few thousand events,
18 KB at a million), so its cost per event stays a small fraction of the event's own line."""
_GUARD_BYTES = 256
_HEAD_BYTES = 4096


@dataclass(frozen=True)
class Snapshot:
    """A checked snapshot: the fold of the log's first ``seq`` events."""

    seq: int
    offset: int
    generation: int
    nodes: Sequence[int]
    """The surface's seqs (a snapshot read; one to write gives ``runs`` only)."""
    latest: Mapping[str, int]
    events: Mapping[int, Event]
    """The events kept whole: the latest of each type (read back from ``lines``)."""
    marks: Sequence[tuple[int, int]] = ()
    codec: Mapping[str, Any] = field(default_factory=dict)
    lines: Mapping[str, tuple[int, bytes]] = field(default_factory=dict)
    """Event type → (the first seq of the line, the log's line) of each latest event."""
    runs: Sequence[Sequence[int]] = ()
    """``nodes`` as ``[first, count]`` runs of consecutive seqs."""


def snapshot_path(log_file: WorkspacePath, format: str = "ctxlab") -> WorkspacePath:
    """The snapshot file of the log at ``log_file`` (a sidecar for a dsh file)."""
    suffix = SNAPSHOT_SUFFIX if format == "ctxlab" else SIDECAR_SUFFIX
    return WorkspacePath(log_file.root, log_file.relative + suffix)


class NodeRuns:
    """A surface's seqs as ``[first, count]`` runs, kept up to date as nodes are appended
    (a replace, which moves the generation, makes the next call start over), so a periodic
    snapshot of a surface that only grows costs O(nodes appended since), not O(surface)."""

    def __init__(self) -> None:
        self._generation, self._seen = -1, 0
        self._runs: list[list[int]] = []

    def seed(self, runs: Sequence[Sequence[int]], generation: int, count: int) -> None:
        """Start from the runs of a snapshot read (``count`` nodes, ``generation``)."""
        self._runs = [[first, length] for first, length in runs]
        self._generation, self._seen = generation, count

    def of(self, nodes: Sequence[int], generation: int) -> list[list[int]]:
        """The runs of ``nodes`` (read them, never keep them: they change with the log)."""
        if generation != self._generation or len(nodes) < self._seen:
            self._generation, self._seen, self._runs = generation, 0, []
        runs = self._runs
        for seq in nodes[self._seen :]:
            if runs and runs[-1][0] + runs[-1][1] == seq:
                runs[-1][1] += 1
            else:
                runs.append([seq, 1])
        self._seen = len(nodes)
        return runs


def _expand(pairs: list[tuple[int, int]], seq: int) -> list[int]:
    """The seqs of ``pairs``; ValueError unless they are distinct seqs below ``seq``."""
    end = 0
    for first, count in sorted(pairs):
        if first < end or count < 1 or first + count > seq:
            raise ValueError("surface runs that overlap or leave the events it covers")
        end = first + count
    nodes: list[int] = []
    for first, count in pairs:
        nodes.extend(range(first, first + count))
    return nodes


def _guarded(fd: int, offset: int) -> bytes:
    """The log's last up-to-256 bytes before ``offset``, which the guard hashes."""
    start = max(0, offset - _GUARD_BYTES)
    return read_at(fd, start, offset - start)


def _head(fd: int, offset: int) -> str:
    """The SHA-256 of the log's first line (its first 4 KB when longer), within ``offset``."""
    raw = read_at(fd, 0, min(offset, _HEAD_BYTES))
    return hashlib.sha256(raw.split(b"\n", 1)[0]).hexdigest()


def write_snapshot(
    log_file: WorkspacePath, fd: int, offset: int, fold: Snapshot, format: str = "ctxlab"
) -> None:
    """Replace the snapshot of ``log_file`` (open as ``fd``, its first ``offset`` bytes folded
    into ``fold``) by one of ``fold``."""
    kept = sorted({fold.lines[t] for t in fold.latest})  # a line may hold several
    body = b"".join(line + b"\n" for _, line in kept)
    header = {
        "format": SNAPSHOT_FORMAT,
        "seq": fold.seq,
        "offset": offset,
        "guard": hashlib.sha256(_guarded(fd, offset)).hexdigest(),
        "head": _head(fd, offset),
        "generation": fold.generation,
        "nodes": fold.runs,
        "latest": dict(fold.latest),
        "lines": [first for first, _ in kept],
        "marks": [list(mark) for mark in fold.marks],
        "codec": dict(fold.codec),
    }
    content = json.dumps(header, separators=(",", ":")).encode("utf-8") + b"\n" + body
    checksum = hashlib.sha256(content).hexdigest().encode("ascii") + b"\n"
    snapshot_path(log_file, format).write_atomic(checksum + content, sync=False)


def read_snapshot(log_file: WorkspacePath, fd: int, format: str = "ctxlab") -> Snapshot | None:
    """The snapshot of ``log_file`` (open as ``fd``) when it passes every check, else None
    (a warning says why, unless there is no snapshot)."""
    file = snapshot_path(log_file, format)
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        return None
    try:
        return _checked(raw, fd, format, log_file)
    except _Stale as exc:
        logger.warning("%s: snapshot ignored (%s); the log is replayed from the start", file, exc)
        return None


class _Stale(Exception):
    pass


def _checked(raw: bytes, fd: int, format: str, log_file: WorkspacePath) -> Snapshot:
    first = raw.find(b"\n")
    content = raw[first + 1 :]
    if first < 0 or hashlib.sha256(content).hexdigest().encode("ascii") != raw[:first]:
        raise _Stale("torn: it does not match its checksum")
    end = content.find(b"\n")
    try:
        header = json_depth.loads(content[:end].decode("utf-8"))
    except ValueError:  # not UTF-8, not JSON, or nested too deep
        raise _Stale("unreadable header") from None
    if not isinstance(header, dict) or header.get("format") != SNAPSHOT_FORMAT:
        raise _Stale("not a snapshot this version reads")
    seq, offset = header.get("seq"), header.get("offset")
    if not isinstance(seq, int) or not isinstance(offset, int) or seq < 1 or offset < 1:
        raise _Stale("no seq or offset")
    _check_guards(fd, offset, header)
    try:
        firsts = [int(first) for first in header["lines"]]
        events = _read_lines(content[end + 1 :], firsts, format, log_file)
        runs = [(int(first), int(count)) for first, count in header["nodes"]]
        nodes = _expand(runs, seq)
        latest = {str(k): int(v) for k, v in header["latest"].items()}
        generation = int(header["generation"])
        marks = [(int(s), int(o)) for s, o in header["marks"]]
        codec = dict(header["codec"])
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError, EventLogError) as exc:
        raise _Stale(f"unreadable: {exc}") from None  # an event nested too deep is unreadable
    if not set(latest.values()) <= set(events) or any(not 0 <= s < seq for s in events):
        raise _Stale("it does not hold the events it names")
    events = {s: events[s] for s in set(latest.values())}
    if any(events[s].type != t for t, s in latest.items()):
        raise _Stale("a latest event of another type")
    if (
        not marks
        or marks[0][0] != 0
        or any(not (0 <= s < seq and 0 <= o < offset) for s, o in marks)
    ):
        raise _Stale("marks outside the events it covers")
    return Snapshot(seq, offset, generation, nodes, latest, events, marks, codec, runs=runs)


def _read_lines(
    body: bytes, firsts: list[int], format: str, log_file: WorkspacePath
) -> dict[int, Event]:
    """The events of the log lines in ``body`` (line ``i`` holding event ``firsts[i]``
    first), read as a replay reads them."""
    lines = body.split(b"\n")
    if lines.pop() or len(lines) != len(firsts):
        raise ValueError("its lines are not the ones it names")
    events: dict[int, Event] = {}
    for first, line in zip(firsts, lines, strict=True):
        codec = make_codec(format, log_file.path)  # fresh: a line read alone
        for event in codec.scan(log_file.path, line + b"\n", first, at_start=False).events:
            events[event.seq] = event
    return events


def _check_guards(fd: int, offset: int, header: Mapping[str, Any]) -> None:
    before = _guarded(fd, offset)  # one read: the guard's bytes end with the line's newline
    if len(before) < min(offset, _GUARD_BYTES) or not before.endswith(b"\n"):
        raise _Stale(f"stale: the log no longer has a line ending at byte {offset}")
    if hashlib.sha256(before).hexdigest() != header.get("guard"):
        raise _Stale("stale: the log's bytes before its offset changed")
    if _head(fd, offset) != header.get("head"):
        raise _Stale("stale: the log's first line is another (a snapshot of another log)")
