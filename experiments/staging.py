"""All-or-nothing writes of a reports folder.

:func:`staged` gives a scratch folder beside the reports folder, seeded with the inputs a
partial run merges into (``claims.csv`` and the experiments' ``E*.json``). Everything is written
there; only when the block ends without an error are the files moved into the reports folder,
each by an atomic rename, ``index.html`` last. On an error the reports folder is untouched and
the scratch folder is removed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from harness.errors import ConfigError

__all__ = ["Stage", "staged"]

LAST = "index.html"
"""Moved last: a reader who sees the new page finds every file it links to."""


@dataclass
class Stage:
    """The scratch folder of one :func:`staged` block."""

    folder: Path
    keep: bool = True
    """False after :meth:`discard`: nothing is moved."""

    def discard(self) -> None:
        """Move nothing into the reports folder when the block ends."""
        self.keep = False


@contextmanager
def staged(out_dir: Path) -> Iterator[Stage]:
    """A :class:`Stage` whose files replace ``out_dir``'s when the block ends cleanly."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError(f"--out {out_dir} is a file; give a folder (it is created if missing).")
    parent = out_dir.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f".{out_dir.name or 'reports'}.", dir=parent))
    try:
        _seed(out_dir, folder)
        stage = Stage(folder)
        yield stage
        if stage.keep:
            _commit(folder, out_dir)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _seed(out_dir: Path, folder: Path) -> None:
    """Copy what a run merges into: the claims table and every experiment's JSON."""
    if not out_dir.is_dir():
        return
    # mutations.csv too: the page shows the matrix (``ctxlab mutations`` writes it)
    seeded = [out_dir / "claims.csv", out_dir / "mutations.csv"]
    for source in [*seeded, *sorted(out_dir.glob("[EX]*.json"))]:
        if source.is_file():
            shutil.copyfile(source, folder / source.name)


def _commit(folder: Path, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    names = sorted(p.name for p in folder.iterdir() if p.is_file())
    for name in sorted(names, key=lambda n: n == LAST):
        os.replace(folder / name, out_dir / name)
    descriptor = os.open(out_dir, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
