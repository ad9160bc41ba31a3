"""A snapshot of an event log's folded surface, so a reopen reads O(surface), not O(history).

The snapshot is a side file ``events/<session>.jsonl.snapshot`` beside the log; the log itself
is never changed by it (older code reads the same log and ignores the file). Its first line is
the SHA-256 of everything after it (a file torn by a crash, or a flipped byte anywhere, fails
it: the snapshot is *torn*); then a JSON header line, then one line per event the fold needs
(every surface node and the latest event of each type), each as the log writes it. The header
names what it covers:

* ``seq``: how many events the snapshot covers; ``offset``: where event ``seq`` starts in the
  log (the byte after the newline of event ``seq - 1``);
* ``guard``: the SHA-256 of the log's last up-to-256 bytes before ``offset`` (a log rewritten,
  truncated by a power cut or replaced since has other bytes there: the snapshot is *stale*);
* ``generation``, ``nodes`` (the surface's seqs) and ``latest`` (type → seq).

A snapshot that fails any check is ignored with a warning and the log is replayed from the
start, which stays the reference (:meth:`EventLog.replay`); a snapshot is only a cache, so it
is written by temp file + rename without an fsync (after a power cut it is at worst stale or
torn, and ignored). :mod:`tests.test_eventlog_snapshot` checks snapshot + tail ≡ full replay
on random logs, with snapshots torn at every byte and a writer killed with SIGKILL.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from harness import json_depth
from harness.errors import LogCorruptError
from harness.fs.path import WorkspacePath
from harness.store.eventlog.events import Event
from harness.store.eventlog.scan import read_at, scan_bytes

__all__ = [
    "DEFAULT_SNAPSHOT_EVERY",
    "SNAPSHOT_SUFFIX",
    "Snapshot",
    "prefix_reader",
    "read_snapshot",
    "snapshot_path",
    "write_snapshot",
]

logger = logging.getLogger("harness.store.eventlog")

SNAPSHOT_FORMAT = 1
SNAPSHOT_SUFFIX = ".snapshot"
DEFAULT_SNAPSHOT_EVERY = 500
"""A snapshot is written at each compaction's end and once ``max(this, surface size)`` events
were appended since the last one, so its cost per event stays O(1) and a reopen's tail is at
most that long."""
_GUARD_BYTES = 256


@dataclass(frozen=True)
class Snapshot:
    """A checked snapshot: the fold of the log's first ``seq`` events."""

    seq: int
    offset: int
    generation: int
    nodes: tuple[int, ...]
    latest: Mapping[str, int]
    events: Mapping[int, Event]


def snapshot_path(log_file: WorkspacePath) -> WorkspacePath:
    """The snapshot file of the log at ``log_file``."""
    return WorkspacePath(log_file.root, log_file.relative + SNAPSHOT_SUFFIX)


def prefix_reader(log_file: WorkspacePath, count: int, offset: int) -> Callable[[], list[Event]]:
    """Reads the ``count`` events in the log's first ``offset`` bytes (an append-only log never
    rewrites them), for the first access to an event a snapshot let a reopen skip."""

    def read() -> list[Event]:
        fd = log_file.open_fd(os.O_RDONLY)
        try:
            raw = read_at(fd, 0, offset)
        finally:
            os.close(fd)
        events = scan_bytes(log_file.path, raw, first_seq=0).events
        if len(events) != count:
            raise LogCorruptError(
                f"{log_file.path}: {len(events)} events before its snapshot's offset, not {count}"
            )
        return events

    return read


def _guarded(fd: int, offset: int) -> bytes:
    """The log's last up-to-256 bytes before ``offset``, which the guard hashes."""
    start = max(0, offset - _GUARD_BYTES)
    return read_at(fd, start, offset - start)


def _guard(fd: int, offset: int) -> str:
    return hashlib.sha256(_guarded(fd, offset)).hexdigest()


def write_snapshot(log_file: WorkspacePath, fd: int, offset: int, fold: Snapshot) -> None:
    """Replace the snapshot of ``log_file`` (open as ``fd``, its first ``offset`` bytes folded
    into ``fold``) by one of ``fold``."""
    seq, generation, nodes, latest = fold.seq, fold.generation, fold.nodes, fold.latest
    events = (fold.events[s] for s in sorted(fold.events))
    body = "".join(event.to_json() + "\n" for event in events).encode("utf-8")
    header = {
        "format": SNAPSHOT_FORMAT,
        "seq": seq,
        "offset": offset,
        "guard": _guard(fd, offset),
        "generation": generation,
        "nodes": list(nodes),
        "latest": dict(latest),
    }
    content = json.dumps(header, separators=(",", ":")).encode("utf-8") + b"\n" + body
    checksum = hashlib.sha256(content).hexdigest().encode("ascii") + b"\n"
    snapshot_path(log_file).write_atomic(checksum + content, sync=False)


def read_snapshot(log_file: WorkspacePath, fd: int) -> Snapshot | None:
    """The snapshot of ``log_file`` (open as ``fd``) when it passes every check, else None
    (a warning says why, unless there is no snapshot)."""
    file = snapshot_path(log_file)
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        return None
    try:
        return _checked(raw, fd)
    except _Stale as exc:
        logger.warning("%s: snapshot ignored (%s); the log is replayed from the start", file, exc)
        return None


class _Stale(Exception):
    pass


def _checked(raw: bytes, fd: int) -> Snapshot:
    first = raw.find(b"\n")
    content = raw[first + 1 :]
    if first < 0 or hashlib.sha256(content).hexdigest().encode("ascii") != raw[:first]:
        raise _Stale("torn: it does not match its checksum")
    end = content.find(b"\n")
    raw = content
    try:
        header = json_depth.loads(raw[:end].decode("utf-8"))
    except ValueError:
        raise _Stale("unreadable header") from None
    if not isinstance(header, dict) or header.get("format") != SNAPSHOT_FORMAT:
        raise _Stale("not a snapshot this version reads")
    body = raw[end + 1 :]
    seq, offset = header.get("seq"), header.get("offset")
    if not isinstance(seq, int) or not isinstance(offset, int) or seq < 1 or offset < 1:
        raise _Stale("no seq or offset")
    before = _guarded(fd, offset)  # one read: the guard's bytes end with the line's newline
    if len(before) < min(offset, _GUARD_BYTES) or not before.endswith(b"\n"):
        raise _Stale(f"stale: the log no longer has a line ending at byte {offset}")
    if hashlib.sha256(before).hexdigest() != header.get("guard"):
        raise _Stale("stale: the log's bytes before its offset changed")
    try:
        events = {e.seq: e for e in map(Event.from_json, body.decode("utf-8").splitlines())}
        nodes = tuple(int(n) for n in header["nodes"])
        latest = {str(k): int(v) for k, v in header["latest"].items()}
        generation = int(header["generation"])
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        raise _Stale(f"unreadable: {exc}") from None  # an event nested too deep is unreadable
    wanted = set(nodes) | set(latest.values())
    if not wanted <= set(events) or any(not 0 <= s < seq for s in events):
        raise _Stale("it does not hold the events it names")
    if any(not events[n].is_surface for n in nodes):
        raise _Stale("a surface node that is not a surface event")
    return Snapshot(seq, offset, generation, nodes, latest, events)
