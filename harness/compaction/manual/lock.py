"""The manual compaction's side of the session lock (:mod:`harness.store.session_lock`).

Manual compaction and undo hold the same ``locks/<session>.lock`` an agent call holds for its
turn (one writer per session). A lock that a live holder keeps is ``busy`` at once (the
article's rail: compact only when idle); a lock whose holder died is taken, and the holder its
file still named is yielded so the caller can audit the broken lock.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.errors import ManualCompactionError, SessionBusyError
from harness.fs.path import WorkspacePath
from harness.store.session_lock import holder, who
from harness.store.session_lock import session_lock as _session_lock

__all__ = ["holder", "session_lock", "who"]


@contextlib.contextmanager
def session_lock(
    path: Path | WorkspacePath, action: str, timeout: float = 0.0
) -> Iterator[dict[str, Any] | None]:
    """Hold the session lock at ``path`` for ``action``; yields the earlier holder the file
    still named (gone, since its lock was free) or None. ManualCompactionError ``busy`` while a
    live process holds it past ``timeout`` (0: at once)."""
    with contextlib.ExitStack() as stack:
        try:
            previous = stack.enter_context(_session_lock(path, action, timeout))
        except SessionBusyError as exc:
            current = exc.holder
            raise ManualCompactionError(
                "busy",
                f"the session is locked by pid {current.get('pid', '?')} on "
                f"{current.get('host', '?')} since {current.get('started', '?')} ({path})",
            ) from exc
        yield previous
