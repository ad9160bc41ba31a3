"""The files a run of the mutation matrix read, so that a matrix stays current when the only
files that changed since it was computed are files none of its runs read.

A worker process (:mod:`lab.mutations.worker`) calls :func:`record_reads` first: from then on an
audit hook (:func:`sys.addaudithook`) notes every path the process opens (``open``, ``os.open``,
``io.open_code``: source, bytecode, data and recordings alike), and :func:`files_read` adds every
loaded module's file (a module imported before the hook, or from bytecode, whose source was never
opened). Bytecode stands for its source. The argument that a file outside this set cannot move the
matrix: a run is deterministic (order replay, a fixed hash seed), so until it would first read a
file it proceeds the same whatever that file holds, and a run that never read it never gets there.
Files added or removed, or a directory listing, are not seen: the check treats any added or
removed input as a change to a file read (:func:`lab.mutations.inputs.matrix_is_current`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from importlib.util import source_from_cache
from pathlib import Path

__all__ = ["files_read", "record_reads", "source_of"]

_opened: set[str] = set()


def _hook(event: str, args: tuple[object, ...]) -> None:
    if event != "open" or not args:
        return
    path = args[0]
    try:  # an open by descriptor (an int) names no file; the hook itself must never raise
        if isinstance(path, str | bytes | os.PathLike):
            _opened.add(os.path.abspath(os.fsdecode(path)))
    except Exception:  # an audit hook that raises would fail the open itself
        return


def record_reads() -> None:
    """From now on, note every path this process opens (cannot be undone: a worker's whole life)."""
    sys.addaudithook(_hook)


def source_of(path: str) -> str:
    """``path``, or the source file a bytecode file was compiled from (in ``__pycache__`` or
    under :data:`sys.pycache_prefix`)."""
    if path.endswith(".pyc"):
        try:
            return source_from_cache(path)
        except ValueError:
            return path
    return path


def files_read(modules: Iterable[object] | None = None) -> list[str]:
    """Every file this process opened since :func:`record_reads`, and the file of every loaded
    module (default: :data:`sys.modules`), absolute and resolved, bytecode as its source."""
    found = set(_opened)
    for module in list(sys.modules.values()) if modules is None else modules:
        file = getattr(module, "__file__", None)
        if isinstance(file, str):
            found.add(os.path.abspath(file))
    return sorted({str(Path(source_of(path)).resolve()) for path in found})
