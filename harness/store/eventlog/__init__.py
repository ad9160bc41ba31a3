"""An agent's session as an append-only event log (DeepSeek-Harness's design).

Nothing is ever deleted: messages are events, and the history the model sees (the *surface*)
is folded from the log, where a compaction is a ``replace`` op (its span named by event seqs,
as DeepSeek-Harness folds it) appended inside a ``compaction/start`` … ``compaction/end``
bracket. Replaying the file from zero gives the same surface as the live process; the shadowed
originals stay in the log.

* :mod:`~harness.store.eventlog.events` — :class:`Event` and its own rules;
* :mod:`~harness.store.eventlog.surface` — :class:`Surface`, :func:`fold`, :class:`SurfaceManager`;
* :mod:`~harness.store.eventlog.log` — :class:`EventLog` (JSONL file, crash recovery, several
  writers under an OS file lock);
* :mod:`~harness.store.eventlog.scan` — reading the JSONL (a torn last line is not corruption);
* :mod:`~harness.store.eventlog.snapshot` — the fold as a side file (a sidecar for a dsh
  file), so a reopen reads it and the tail; :mod:`~harness.store.eventlog.marks` — where the
  events sit in the file; :mod:`~harness.store.eventlog.prefix` — the events before a
  snapshot, read when first asked for;
* :func:`~harness.fs.locks.exclusive` — the ``flock`` the appends take;
* :mod:`~harness.store.eventlog.migrate` — rewriting logs whose replaces named positions;
* :mod:`~harness.store.eventlog.history` — :class:`EventLogHistory`, the agent's history on a log;
* :mod:`~harness.store.eventlog.bracket` — :func:`compaction_bracket`, the one
  ``compaction/start`` … ``compaction/end`` bracket (and busy check) both engines and manual
  compaction write.
"""

from harness.store.eventlog.events import ROLE_OF_TYPE, SURFACE_TYPES, TYPE_OF_ROLE, Event
from harness.store.eventlog.history import EventLogHistory
from harness.store.eventlog.log import END_SEED, EventLog, read_events
from harness.store.eventlog.surface import Surface, SurfaceManager, fold

__all__ = [
    "END_SEED",
    "ROLE_OF_TYPE",
    "SURFACE_TYPES",
    "TYPE_OF_ROLE",
    "Event",
    "EventLog",
    "EventLogHistory",
    "Surface",
    "SurfaceManager",
    "fold",
    "read_events",
]
