"""Migrating a log written before replaces named their span by event seqs.

ctxlab up to 0.1.0 wrote a replace's ``start``/``end`` as surface **positions**; it now writes
the event seqs at those positions, as DeepSeek-Harness does (see
:mod:`harness.store.eventlog.surface`). :func:`positional_to_seqs` folds an old log the old way and
rewrites each replace with the seqs its positions named; the events are otherwise unchanged
(same seqs, times, data and sources), so the surface is the same. Opening an old log fails with
a LogCorruptError that points here::

    python -m harness.store.eventlog.migrate events/<session>.jsonl
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from harness.errors import EventLogError, LogCorruptError, SurfaceError
from harness.fs.files import write_atomic
from harness.fs.locks import exclusive
from harness.store.eventlog.events import Event
from harness.store.eventlog.scan import scan_file
from harness.store.eventlog.surface import SurfaceManager, fold

__all__ = ["migrate_file", "positional_to_seqs"]


def positional_to_seqs(events: Iterable[Event]) -> list[Event]:
    """The events with every positional replace rewritten to name seqs; SurfaceError when
    the events do not fold positionally either."""
    nodes: list[int] = []
    manager = SurfaceManager()
    migrated = []
    for event in events:
        op = event.surface_op
        if isinstance(op, Mapping):
            start, end = op["start"], op["end"]
            if not 0 <= start <= end < len(nodes):
                raise SurfaceError(
                    f"event {event.seq}: positions {start}..{end} not on the surface"
                )
            record = event.to_record()
            record["surface_op"] = {"op": "replace", "start": nodes[start], "end": nodes[end]}
            event = Event.from_record(record)
            nodes[start : end + 1] = [event.seq]
        elif event.is_surface:
            nodes.append(event.seq)
        manager.apply(event)  # the migrated log must fold the new way
        migrated.append(event)
    return migrated


def migrate_file(path: Path) -> int:
    """Rewrite the log at ``path`` in place (atomically, under its lock; run it while no agent
    has the session open); returns how many replaces changed."""
    with exclusive(path):
        events = scan_file(path).events
        try:
            fold(events)
            return 0  # it folds the new way already
        except SurfaceError:
            pass
        migrated = positional_to_seqs(events)
        changed = sum(a.surface_op != b.surface_op for a, b in zip(events, migrated, strict=True))
        if changed:
            write_atomic(path, "".join(e.to_json() + "\n" for e in migrated))
    return changed


def hint(path: Path, error: LogCorruptError) -> LogCorruptError:
    """``error``, pointing at the migration when the log folds the old, positional way."""
    try:
        positional_to_seqs(scan_file(path).events)
    except (EventLogError, ValueError):
        return error
    return LogCorruptError(
        f"{error}; {path} was written by an older ctxlab whose replaces named surface positions: "
        f"migrate it with `python -m harness.store.eventlog.migrate {path}`"
    )


def main(argv: list[str]) -> int:
    for name in argv:
        print(f"{name}: {migrate_file(Path(name))} replace(s) migrated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
