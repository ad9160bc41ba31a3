"""Each report build through the runner made once per test process for its inputs.

Many tests run an experiment (``ctxlab run E1``, the claims plugin's inner pytest runs of
tests/lab/test_claims_plugin.py, tests/lab/test_cli_check.py) and the runner then rebuilds every
report of the folder (:func:`lab.runner.write_results` calls :func:`lab.report.build_reports`):
about a second of CPU each time (the views read back, the evidence pages, ~170 files written),
most of them from the same inputs. :data:`MEMO` wraps the runner's ``build_reports`` so that a
build whose inputs it has built before in this process writes that build's files again, through
the report's own writer (:func:`lab.report._write`: secrets refused, stale evidence pages
removed, each file written atomically), and returns the same list of files.

The key holds everything a build reads: every file of the folder (names and bytes), every file
of the cassettes its evidence pages read (names and bytes, digested once per name, size and
mtime), ``jobs`` (a ``--jobs 2`` build is never served a ``--jobs 1`` build's bytes), the suite
in use, and the code (:func:`support.bench_memo.code_digest`). Only a build that succeeded is
kept. Tests that build the report themselves call :func:`lab.report.build_reports` directly
and are never served from here, nor is any process but the one that installed the memo (a
forked worker of ``ctxlab run --jobs``, a mutation's worker). A test that compares two builds
made through the runner makes the second inside :meth:`ReportMemo.fresh`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import lab.report
import lab.runner
from lab.project import SOURCE_ROOT
from lab.report.evidence import FOLDER
from lab.suite import current
from support.bench_memo import code_digest
from support.memo_switch import MemoSwitch

Build = Callable[..., list[Path]]
KEEP = 8
"""How many builds the memo keeps (the last made; a full report is about 5 MB)."""


def _folder_digest(digest: hashlib._Hash, folder: Path) -> None:
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())


class ReportMemo(MemoSwitch):
    """The builds of this process, by :meth:`key`: each build's files (relative names, bytes)."""

    def __init__(self) -> None:
        self.builds: dict[str, list[tuple[str, bytes]]] = {}
        self.owner = os.getpid()
        self.built = 0
        """Builds this process made through the memo (for the memo's own tests)."""
        self._cassette_files: dict[tuple[str, int, int], bytes] = {}

    def _cassettes_digest(self, digest: hashlib._Hash, cassettes: Path) -> None:
        for path in sorted(p for p in cassettes.rglob("*") if p.is_file()):
            stat = path.stat()
            seen = (str(path), stat.st_size, stat.st_mtime_ns)
            if seen not in self._cassette_files:
                self._cassette_files[seen] = hashlib.sha256(path.read_bytes()).digest()
            digest.update(path.relative_to(cassettes).as_posix().encode() + b"\0")
            digest.update(self._cassette_files[seen])

    def key(self, out_dir: Path, jobs: int, cassettes: Path | None) -> str:
        """Everything a build of ``out_dir`` reads, digested."""
        digest = hashlib.sha256(code_digest().encode())
        digest.update(f"{jobs}\0{current()!r}\0".encode())
        _folder_digest(digest, out_dir)
        digest.update(b"\0cassettes\0")
        self._cassettes_digest(digest, cassettes or SOURCE_ROOT / "cassettes")
        return digest.hexdigest()

    def wrap(self, build: Build) -> Build:
        def build_once(
            out_dir: Path, jobs: int = 1, cassettes: Path | None = None, *, durable: bool = True
        ) -> list[Path]:
            if not self.enabled or os.getpid() != self.owner:
                return build(out_dir, jobs, cassettes, durable=durable)
            key = self.key(out_dir, jobs, cassettes)
            stored = self.builds.get(key)
            if stored is None:
                self.built += 1
                written = build(out_dir, jobs, cassettes, durable=durable)
                self.builds[key] = [
                    (p.relative_to(out_dir).as_posix(), p.read_bytes()) for p in written
                ]
                while len(self.builds) > KEEP:
                    del self.builds[next(iter(self.builds))]
                return written
            files: dict[Path, str | bytes] = {out_dir / name: data for name, data in stored}
            lab.report._write(files, out_dir / FOLDER, durable)  # as the build would write them
            return list(files)

        build_once.__wrapped__ = build  # type: ignore[attr-defined]
        return build_once

    def install(self) -> Callable[[], None]:
        """Wrap the runner's ``build_reports``; the function returned unwraps it."""
        original = lab.runner.build_reports
        self.owner = os.getpid()
        lab.runner.build_reports = self.wrap(original)

        def uninstall() -> None:
            lab.runner.build_reports = original

        return uninstall


MEMO = ReportMemo()
"""The test process's memo (installed by the root ``conftest.py``)."""

__all__ = ["KEEP", "MEMO", "ReportMemo"]
