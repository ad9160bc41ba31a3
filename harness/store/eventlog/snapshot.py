"""A snapshot of an event log's folded surface, so a reopen reads O(surface), not O(history).

The snapshot is a side file ``events/<session>.jsonl.snapshot`` beside the log; the log itself
is never changed by it (older code reads the same log and ignores the file). It is JSONL: a
header line, then one line per event the fold needs (every surface node and the latest event of
each type), each exactly as the log writes it. The header names what it covers and how to
check it:

* ``seq``: how many events the snapshot covers; ``offset``: where event ``seq`` starts in the
  log (the byte after the newline of event ``seq - 1``);
* ``guard``: the SHA-256 of the log's last up-to-256 bytes before ``offset`` (a log rewritten,
  truncated by a power cut or replaced since has other bytes there: the snapshot is *stale*);
* ``body_sha`` and ``body_bytes``: the SHA-256 and length of the lines after the header (a file
  torn by a crash, or a flipped byte, fails them: the snapshot is *torn*);
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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from harness.store.eventlog.events import Event
from harness.store.eventlog.scan import read_at
from harness.workspace_path import WorkspacePath

__all__ = [
    "DEFAULT_SNAPSHOT_EVERY",
    "SNAPSHOT_SUFFIX",
    "Snapshot",
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


def _guard(fd: int, offset: int) -> str:
    start = max(0, offset - _GUARD_BYTES)
    return hashlib.sha256(read_at(fd, start, offset - start)).hexdigest()


def write_snapshot(
    log_file: WorkspacePath,
    fd: int,
    *,
    seq: int,
    offset: int,
    generation: int,
    nodes: Sequence[int],
    latest: Mapping[str, int],
    events: Iterable[Event],
) -> None:
    """Replace the snapshot of ``log_file`` (open as ``fd``, ``offset`` bytes of it folded
    into ``seq`` events) by one of this fold."""
    body = "".join(event.to_json() + "\n" for event in events).encode("utf-8")
    header = {
        "format": SNAPSHOT_FORMAT,
        "seq": seq,
        "offset": offset,
        "guard": _guard(fd, offset),
        "body_sha": hashlib.sha256(body).hexdigest(),
        "body_bytes": len(body),
        "generation": generation,
        "nodes": list(nodes),
        "latest": dict(latest),
    }
    line = json.dumps(header, separators=(",", ":")).encode("utf-8") + b"\n"
    snapshot_path(log_file).write_atomic(line + body, sync=False)


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
    end = raw.find(b"\n")
    try:
        header = json.loads(raw[:end].decode("utf-8"))
    except ValueError:
        raise _Stale("unreadable header") from None
    if not isinstance(header, dict) or header.get("format") != SNAPSHOT_FORMAT:
        raise _Stale("not a snapshot this version reads")
    body = raw[end + 1 :]
    if len(body) != header.get("body_bytes") or (
        hashlib.sha256(body).hexdigest() != header.get("body_sha")
    ):
        raise _Stale("torn: its body does not match its checksum")
    seq, offset = header.get("seq"), header.get("offset")
    if not isinstance(seq, int) or not isinstance(offset, int) or seq < 1 or offset < 1:
        raise _Stale("no seq or offset")
    if os.fstat(fd).st_size < offset or read_at(fd, offset - 1, 1) != b"\n":
        raise _Stale(f"stale: the log no longer has a line ending at byte {offset}")
    if _guard(fd, offset) != header.get("guard"):
        raise _Stale("stale: the log's bytes before its offset changed")
    try:
        events = {e.seq: e for e in map(Event.from_json, body.decode("utf-8").splitlines())}
        nodes = tuple(int(n) for n in header["nodes"])
        latest = {str(k): int(v) for k, v in header["latest"].items()}
        generation = int(header["generation"])
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise _Stale(f"unreadable: {exc}") from None
    wanted = set(nodes) | set(latest.values())
    if not wanted <= set(events) or any(not 0 <= s < seq for s in events):
        raise _Stale("it does not hold the events it names")
    if any(not events[n].is_surface for n in nodes):
        raise _Stale("a surface node that is not a surface event")
    return Snapshot(seq, offset, generation, nodes, latest, events)
