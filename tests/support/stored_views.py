"""A view made once by the test processes that share a folder, and read back by the others.

The memos of experiments' views (``bench_memo``: X-BENCH's replay; ``scripted_memo``: a
scripted experiment's measuring) keep each view as JSON in a folder shared by the xdist workers
and, when it is pytest's cache folder, by later sessions. The first process to need a view makes
it under a lock on its name and writes it atomically; the others wait for the lock and read it
(:func:`lab.views.from_data` of :func:`lab.views.to_data`, the codec the report reads the
experiments' JSON with). The ``keep`` views read or written last under a prefix are kept, the
older ones removed.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from harness.fs.files import write_atomic
from lab.views import from_data, to_data

View = TypeVar("View")


def prune(folder: Path, prefix: str, keep: int) -> None:
    """Remove the stored views ``<prefix>-*.json`` of ``folder`` but the ``keep`` read or written
    last (with their lock files)."""
    stored = sorted(folder.glob(f"{prefix}-*.json"), key=lambda p: p.stat().st_mtime_ns)
    for old in stored[: max(len(stored) - keep, 0)]:
        old.unlink(missing_ok=True)
        old.with_suffix(".lock").unlink(missing_ok=True)


def stored_or_made(
    shared: Path, name: str, view_type: type[View], make: Callable[[], View], keep: int
) -> tuple[View, bool]:
    """The view stored as ``<name>.json`` in ``shared``, or made by ``make`` and stored there
    (then True); ``name`` is ``<prefix>-<key>``."""
    shared.mkdir(parents=True, exist_ok=True)
    stored = shared / f"{name}.json"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one process makes it, the others wait and read
        if stored.is_file():
            os.utime(stored)  # read last: kept by the pruning below
            return from_data(view_type, json.loads(stored.read_text(encoding="utf-8"))), False
        view = make()
        write_atomic(stored, json.dumps(to_data(view), ensure_ascii=False))
    prune(shared, name.rsplit("-", 1)[0], keep)
    return view, True


__all__ = ["prune", "stored_or_made"]
