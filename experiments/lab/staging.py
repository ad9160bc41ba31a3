"""All-or-nothing writes of a reports folder, one writer at a time.

:func:`staged` holds the reports folder's lock (``.<name>.lock`` beside it, the holder-naming
lock sessions use, :mod:`harness.store.session_lock`) for the whole block: a second
``ctxlab run`` into the same folder waits for the first (saying so) and then merges into what
the first wrote, so two runs never mix their results.

Holding the lock it first finishes or rolls back a commit an earlier run left half done (see
below) and removes the scratch folders earlier runs left (``.<name>.staging-<pid>-*``, killed by
SIGTERM or a crash; a scratch folder whose pid is still alive is kept; the eight-character
``.<name>.XXXXXXXX`` scratch folders of earlier ctxlab versions are removed too). Then it gives
a scratch folder beside the reports folder, seeded with a copy of every file of the reports
folder (a partial run merges into ``claims.csv`` and the experiments' ``E*.json``, and keeps
the pages of the experiments it did not run). Everything is written there; only when the block
ends without an error does the scratch folder replace the reports folder, by one directory swap:

1. a journal ``.<name>.commit`` names the scratch folder and where the old folder goes;
2. the old reports folder is renamed aside, the scratch folder renamed into its place;
3. the journal is removed, then the old folder.

A process killed between 1 and 3 leaves the journal, and the next run (holding the lock) reads
it: the scratch folder not yet in place is removed (rolled back, the old folder still whole), or
the old folder put back when the swap stopped half way, or the old folder deleted when the swap
was done. So a reader finds the whole old reports folder or the whole new one, never new files
beside old ones. On an error in the block the reports folder is untouched and the scratch
folder is removed. So on SIGTERM (``kill``, a CI job cancelled, a container stopped): in the main
thread the block turns it into :class:`Terminated`, the scratch folder is removed and the lock
released, and the process then ends by the same signal (its exit status says SIGTERM). A SIGTERM
that arrives while the swap runs is held until the swap is done, so it never leaves a journal to
recover. Only a SIGKILL or a crash leaves scratch folders, which the next run removes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
import threading
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from experiments.lab.errors import ExperimentError
from harness import ConfigError, json_depth
from harness.errors import SessionBusyError
from harness.store.session_lock import session_lock

__all__ = ["LOCK_WAIT_SECONDS", "Stage", "Terminated", "recover", "staged"]

LOCK_WAIT_SECONDS = 3600.0
"""How long a run waits for another run writing the same reports folder."""


@dataclass
class Stage:
    """The scratch folder of one :func:`staged` block."""

    folder: Path
    keep: bool = True
    """False after :meth:`discard`: nothing is moved."""

    def discard(self) -> None:
        """Move nothing into the reports folder when the block ends."""
        self.keep = False


def _names(out_dir: Path) -> tuple[Path, str]:
    out = out_dir.absolute()
    return out.parent, out.name or "reports"


def lock_file(out_dir: Path) -> Path:
    parent, name = _names(out_dir)
    return parent / f".{name}.lock"


@contextmanager
def reports_lock(out_dir: Path, action: str, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """Hold the reports folder's lock for ``action``; a busy lock is waited for (one line on
    stderr says who holds it) up to ``wait`` seconds."""
    lock = lock_file(out_dir)
    with ExitStack() as stack:
        try:
            stack.enter_context(session_lock(lock, action, timeout=0))
        except SessionBusyError as exc:
            holder = exc.holder
            print(
                f"waiting for pid {holder.get('pid', '?')} ({holder.get('action', '?')} since "
                f"{holder.get('started', '?')}) to finish writing {out_dir}",
                file=sys.stderr,
                flush=True,
            )
            try:
                stack.enter_context(session_lock(lock, action, timeout=wait))
            except SessionBusyError as again:
                raise ExperimentError(
                    f"{out_dir} is still being written by pid {again.holder.get('pid', '?')} "
                    f"after {wait:g} s; try again when it has finished"
                ) from again
        yield


class Terminated(BaseException):
    """A SIGTERM received inside :func:`staged` (a BaseException, like KeyboardInterrupt, so
    no ``except Exception`` of an experiment swallows it)."""


class _TermGuard:
    """While installed, SIGTERM raises :class:`Terminated`, or, during :meth:`held` (the swap),
    is kept until the swap is done."""

    def __init__(self) -> None:
        self.holding = False
        self.pending = False
        self.previous: object = None
        self.installed = False

    def __enter__(self) -> _TermGuard:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, self._on_term)
            self.installed = True
        return self

    def _on_term(self, signum: int, frame: object) -> None:
        if self.holding:
            self.pending = True
            return
        raise Terminated(f"signal {signum}")

    @contextmanager
    def held(self) -> Iterator[None]:
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
        if self.pending:
            raise Terminated(f"signal {signal.SIGTERM}")

    def __exit__(self, kind: object, error: object, tb: object) -> None:
        if self.installed:
            signal.signal(signal.SIGTERM, self.previous)  # type: ignore[arg-type]
        if isinstance(error, Terminated):
            # cleaned up: now end as SIGTERM would have ended the process
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)


@contextmanager
def staged(out_dir: Path, action: str = "ctxlab run") -> Iterator[Stage]:
    """A :class:`Stage` whose folder replaces ``out_dir`` when the block ends cleanly."""
    given = out_dir
    out_dir = Path(os.path.abspath(out_dir))  # ".." and "a/../.." name the folder they lead to
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError(f"--out {given} is a file; give a folder (it is created if missing).")
    if out_dir.is_symlink():
        out_dir = out_dir.resolve()  # the swap replaces the folder the link names
    _refuse_a_project(out_dir, given)
    parent, name = _names(out_dir)
    parent.mkdir(parents=True, exist_ok=True)
    with _TermGuard() as guard, reports_lock(out_dir, action):
        recover(out_dir)
        folder = parent / f".{name}.staging-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            _seed(out_dir, folder)
            stage = Stage(folder)
            yield stage
            if stage.keep:
                with guard.held():
                    _commit(folder, out_dir)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def _refuse_a_project(out_dir: Path, given: Path) -> None:
    """The commit replaces the whole folder: never the current folder or one above it, nor a
    checkout (``--out .`` would otherwise swap the project away), nor a folder holding
    checkouts (``--out ..`` from a project in a folder of projects once copied them all and
    would have swapped them, losing what was written to them meanwhile). ``out_dir`` is
    absolute and normalised."""
    here = Path(os.path.abspath(Path.cwd()))
    if out_dir == here or out_dir in here.parents or (out_dir / ".git").exists():
        raise ConfigError(
            f"--out {given} is the current folder, one above it or a checkout; the run "
            "replaces the whole --out folder, so give a folder of its own (it is created if "
            "missing)."
        )
    if out_dir.is_dir():
        inner = sorted(p.name for p in out_dir.iterdir() if p.is_dir() and (p / ".git").exists())
        if inner:
            raise ConfigError(
                f"--out {given} holds checkouts ({', '.join(inner[:3])}); the run replaces "
                "the whole --out folder, so give a folder of its own (it is created if "
                "missing)."
            )


def _commit_journal(journal: Path, name: str) -> tuple[Path, Path]:
    """The new and old folders a commit journal names, beside it; one sentence when it cannot
    be read or names other folders (ctxlab writes it whole, then renames it into place: someone
    else changed it, and recovery deletes what it names)."""
    try:
        entry = json_depth.loads(journal.read_text(encoding="utf-8"))
        new, old = entry["new"], entry["old"]
        for kind, folder in (("staging", new), ("old", old)):
            pattern = rf"\.{re.escape(name)}\.{kind}-\d+-[0-9a-f]{{8}}"
            if not isinstance(folder, str) or not re.fullmatch(pattern, folder):
                raise ValueError(f"{folder!r} is not a {kind} folder of {name}")
    except (ValueError, KeyError, TypeError) as exc:
        raise ExperimentError(
            f"{journal}:1 is not a commit journal ctxlab wrote ({exc}); check the reports "
            "folder beside it, then delete it."
        ) from None
    return journal.parent / new, journal.parent / old


def recover(out_dir: Path) -> None:
    """Holding the lock: finish or roll back a commit an earlier run left half done, and
    remove the scratch folders of runs that are gone."""
    parent, name = _names(out_dir)
    out = parent / name
    journal = parent / f".{name}.commit"
    journal.with_name(journal.name + ".tmp").unlink(missing_ok=True)  # never became the journal
    if journal.is_file():
        new, old = _commit_journal(journal, name)
        if not out.exists() and old.is_dir():
            os.rename(old, out)  # stopped between the two renames: the old folder goes back
        _sync(parent)
        journal.unlink()
        _sync(parent)
        shutil.rmtree(new, ignore_errors=True)  # never swapped in, or swapped in and then back
        shutil.rmtree(old, ignore_errors=True)  # the swap was done
    ours = re.compile(rf"\.{re.escape(name)}\.(?:staging|old)-(\d+)-[0-9a-f]{{8}}")
    before = re.compile(rf"\.{re.escape(name)}\.[a-z0-9_]{{8}}")  # tempfile.mkdtemp's, to 0.x
    for entry in parent.iterdir():
        if not entry.is_dir() or entry.is_symlink():
            continue
        found = ours.fullmatch(entry.name)
        if (found and not _alive(int(found.group(1)))) or before.fullmatch(entry.name):
            shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # this run's own folders are made after the clean-up
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _seed(out_dir: Path, folder: Path) -> None:
    """A copy of the reports folder: what a run merges into and the pages it keeps."""
    if out_dir.is_dir():
        shutil.copytree(out_dir, folder, symlinks=True)
    else:
        folder.mkdir()


def _commit(folder: Path, out_dir: Path) -> None:
    """Swap ``folder`` in for ``out_dir`` (see the module docstring)."""
    parent, name = _names(out_dir)
    out = parent / name
    _sync_tree(folder)
    old = parent / f".{name}.old-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    journal = parent / f".{name}.commit"
    scratch = journal.with_name(journal.name + ".tmp")
    scratch.write_text(json.dumps({"new": folder.name, "old": old.name}), encoding="utf-8")
    with open(scratch, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(scratch, journal)
    _sync(parent)
    if out.exists():
        os.rename(out, old)
    os.rename(folder, out)
    _sync(parent)
    journal.unlink()
    _sync(parent)
    shutil.rmtree(old, ignore_errors=True)


def _sync_tree(folder: Path) -> None:
    for path in folder.iterdir():
        if path.is_file():
            with open(path, "rb") as handle:
                os.fsync(handle.fileno())
    _sync(folder)


def _sync(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
