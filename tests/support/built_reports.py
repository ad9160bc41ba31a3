"""A report folder built once for its inputs and code, shared by the test processes.

Several test modules read a report built from the same inputs (the committed ``reports/``:
tests/lab/test_report_text.py, tests/lab/test_report_browser.py) and each built it again with
:func:`lab.report.build_reports`: a few seconds of CPU each time, in each xdist worker, in each
session. :data:`BUILT` builds a folder of inputs once into a shared folder and hands out copies
of the result (:func:`support.report_inputs.built_copy`).

The key holds everything a build reads: every file of the inputs folder (names and bytes),
every file of the project's ``cassettes/`` (the evidence pages quote them), the suite in use
and the code (:func:`support.bench_memo.code_digest`: ``harness/``, ``lab/``,
``experiments/``, the pins, the Python, the installed versions). The shared folder is pytest's
cache folder (``.pytest_cache/d/ctxlab-reports``, given by the root ``conftest.py``), so later
sessions of the same inputs and code copy the build too. The first process to need a build makes
it under a lock on the folder, in a temporary folder renamed into place, so another process sees
a whole build or none; the :data:`KEEP` builds used last are kept. Tests of the build itself call
:func:`lab.report.build_reports` and are never served from here.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from lab.project import SOURCE_ROOT
from lab.report import build_reports
from lab.suite import current
from support.bench_memo import code_digest
from support.memo_switch import MemoSwitch

KEEP = 8
"""How many builds a shared folder keeps (the ones used last; a full report is about 5 MB)."""

Build = Callable[[Path], object]


def folder_digest(digest: hashlib._Hash, folder: Path) -> None:
    """Every file of ``folder``, its name and bytes, into ``digest``."""
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())


def build_key(inputs: Path, cassettes: Path = SOURCE_ROOT / "cassettes") -> str:
    """Everything a build of ``inputs`` reads, digested."""
    digest = hashlib.sha256(code_digest().encode())
    digest.update(f"{current()!r}\0inputs\0".encode())
    folder_digest(digest, inputs)
    digest.update(b"\0cassettes\0")
    folder_digest(digest, cassettes)
    return digest.hexdigest()


def prune(folder: Path, keep: int) -> None:
    """Remove the stored builds of ``folder`` but the ``keep`` used last (with their locks)."""
    builds = [p for p in folder.glob("built-*") if p.is_dir() and not p.name.endswith(".tmp")]
    stored = sorted(builds, key=lambda p: p.stat().st_mtime_ns)
    for old in stored[: max(len(stored) - keep, 0)]:
        shutil.rmtree(old, ignore_errors=True)
        old.with_name(old.name + ".lock").unlink(missing_ok=True)


class BuiltReports(MemoSwitch):
    """Builds of report inputs, by :func:`build_key`, in :attr:`shared`."""

    def __init__(self, build: Build = build_reports, cassettes: Path | None = None) -> None:
        self.build = build
        self.cassettes = cassettes or SOURCE_ROOT / "cassettes"
        """The cassettes a build's evidence pages read."""
        self.shared: Path | None = None
        """The folder the builds are kept in (None: every copy is built on its own)."""
        self.built = 0
        """Builds this process made (for the memo's own tests)."""

    def copy(self, inputs: Path, folder: Path) -> Path:
        """``inputs`` copied to ``folder`` with the report built there."""
        if self.shared is None or not self.enabled:
            shutil.copytree(inputs, folder)
            self.built += 1
            self.build(folder)
            return folder
        shutil.copytree(self._stored(inputs), folder)
        return folder

    def _stored(self, inputs: Path) -> Path:
        assert self.shared is not None
        self.shared.mkdir(parents=True, exist_ok=True)
        stored = self.shared / f"built-{build_key(inputs, self.cassettes)[:32]}"
        with open(stored.with_name(stored.name + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one process builds, the others wait and copy
            if stored.is_dir():
                os.utime(stored)  # used last: kept by the pruning below
                return stored
            making = stored.with_name(f"{stored.name}.{os.getpid()}.tmp")
            shutil.rmtree(making, ignore_errors=True)
            shutil.copytree(inputs, making)
            self.built += 1
            self.build(making)
            os.replace(making, stored)  # whole or absent for every other process
        prune(self.shared, KEEP)
        return stored

    def install(self, shared: Path | None) -> Callable[[], None]:
        """Keep the builds in ``shared``; the function returned forgets it."""
        self.shared = shared

        def uninstall() -> None:
            self.shared = None

        return uninstall


BUILT = BuiltReports()
"""The test process's builds (given their folder by the root ``conftest.py``)."""

__all__ = ["BUILT", "KEEP", "BuiltReports", "build_key", "folder_digest", "prune"]
