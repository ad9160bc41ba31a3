"""A user's saved sessions on disk, and the one place that picks a session's store.

::

    <workspace>/<user>/
    ├── events/<session>.jsonl              an event-log session (EventLogHistory)
    ├── state/<session>.json                a state-file session's checkpoint (StateHistory)
    ├── state/<session>.journal.jsonl       ... and its journal
    └── sessions/<session>.jsonl            ... and its transcript (every original)

Every file is a :class:`~harness.fs.path.WorkspacePath` below the user's folder, so the
stores never follow a symlink, at open or later (:mod:`harness.fs.root`). The builder opens
a session with :func:`open_history` (the store it is asked for); manual compaction and undo
with :func:`open_saved` (whichever store holds it: :func:`saved_store`); ``session_search``
reads every saved session with :func:`saved_histories` (read-only: nothing is locked,
truncated or appended). Nobody else looks at these names.
"""

from __future__ import annotations

import logging
from typing import Literal

from harness.errors import ConfigError, EventLogError, PathEscapeError
from harness.fs.path import WorkspacePath
from harness.fs.root import SafeRoot
from harness.store.durability import Durability, check_durability
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.eventlog.codec import LogFormat
from harness.store.eventlog.log import StampClock
from harness.store.history import StateHistory
from harness.store.statefile import JsonStateStore, Transcript, utc_now

__all__ = [
    "FOLDERS",
    "Store",
    "open_history",
    "open_saved",
    "saved_histories",
    "saved_store",
]

logger = logging.getLogger("harness.store")

Store = Literal["state", "eventlog"]
FOLDERS = ("events", "state", "sessions")
"""The folders below a user's folder that hold sessions."""

Stores = EventLogHistory | StateHistory


def _events(fs: SafeRoot, session_id: str) -> WorkspacePath:
    return WorkspacePath(fs, f"events/{session_id}.jsonl")


def _transcript(fs: SafeRoot, session_id: str) -> WorkspacePath:
    return WorkspacePath(fs, f"sessions/{session_id}.jsonl")


def _state_store(fs: SafeRoot, durability: Durability = "per-event") -> JsonStateStore:
    return JsonStateStore(WorkspacePath(fs, "state"), durability=durability)


def _state_history(
    fs: SafeRoot, session_id: str, clock: StampClock, durability: Durability = "per-event"
) -> StateHistory:
    transcript = Transcript(_transcript(fs, session_id), clock, durability=durability)
    return StateHistory(session_id, _state_store(fs, durability), transcript)


def open_history(
    fs: SafeRoot,
    session_id: str,
    store: str,
    clock: StampClock = utc_now,
    log_format: LogFormat | None = None,
    durability: Durability = "per-event",
) -> Stores:
    """The session's history in ``store`` (``state`` or ``eventlog``), new or resumed, whose
    appends reach the disk as ``durability`` says (:mod:`harness.store.durability`). The
    session folders must be real folders and its own files real files (a planted symlink is
    refused with PathEscapeError before anything is opened); a crashed save's temp files are
    removed first. ``log_format`` (event logs): ``"dsh"`` writes DeepSeek-Harness's session
    file (``docs/dsh-sessions.md``); None keeps a resumed file's format, ctxlab's for a new
    one; a resumed file of another format than the one named is refused."""
    durability = check_durability(durability)
    _refuse_links(fs, session_id)
    fs.remove_temps("state", prefix=f".{session_id}.json.")  # left by a crashed save
    if store == "eventlog":
        path = _events(fs, session_id)
        if path.kind() is not None:
            return EventLogHistory(EventLog.open(path, clock, log_format, durability=durability))
        return EventLogHistory(EventLog(path, clock, log_format or "ctxlab", durability=durability))
    if store != "state":
        raise ConfigError(f"unknown session store {store!r}; use 'state' or 'eventlog'")
    return _state_history(fs, session_id, clock, durability)


def saved_store(fs: SafeRoot, session_id: str) -> Store | None:
    """Which store holds the saved session (the event log first), or None; opens nothing."""
    if _events(fs, session_id).kind() is not None:
        return "eventlog"
    return "state" if _state_store(fs).exists(session_id) else None


def open_saved(fs: SafeRoot, session_id: str, clock: StampClock = utc_now) -> Stores | None:
    """The saved session in whichever store holds it (:func:`saved_store`), or None when
    neither does. An event log is opened for writing (:meth:`EventLog.open`)."""
    store = saved_store(fs, session_id)
    if store == "eventlog":
        return EventLogHistory(EventLog.open(_events(fs, session_id), clock))
    return None if store is None else _state_history(fs, session_id, clock)


def saved_histories(fs: SafeRoot) -> list[Stores]:
    """Every saved session of the user, read-only, for searching their originals: each
    transcript in ``sessions/`` and each event log in ``events/`` (replayed, never locked or
    repaired; one that cannot be read is left out with a warning)."""
    found: list[Stores] = []
    for folder in ("sessions", "events"):
        for relative in fs.files(folder):
            if not relative.endswith(".jsonl") or relative.count("/") != 1:
                continue
            file = WorkspacePath(fs, relative)
            if folder == "sessions":
                session = file.name.removesuffix(".jsonl")
                found.append(StateHistory(session, transcript=Transcript(file)))
                continue
            try:
                found.append(EventLogHistory(EventLog.replay(file)))
            except (EventLogError, PathEscapeError, OSError) as exc:
                logger.warning("%s: not searched: %s", file, exc)
    return found


def _refuse_links(fs: SafeRoot, session_id: str) -> None:
    for folder in FOLDERS:
        if fs.kind(folder) not in (None, "dir"):
            raise PathEscapeError(f"{fs.base / folder} is not a folder inside the workspace")
    for file in (  # the session's own files: a planted symlink is never opened
        _events(fs, session_id),
        _state_store(fs).file(session_id),
        _state_store(fs).journal(session_id),
        _transcript(fs, session_id),
    ):
        if file.kind() not in (None, "file"):
            raise PathEscapeError(f"{file} is not a file inside the workspace")
