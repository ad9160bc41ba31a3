"""All-or-nothing writes of a reports folder, one writer at a time.

:func:`staged` holds the reports folder's lock (``.<name>.lock`` beside it, the holder-naming
lock sessions use, :mod:`harness.store.session_lock`) for the whole block: a second
``ctxlab run`` into the same folder waits for the first (saying so) and then merges into what
the first wrote, so two runs never mix their results.

The folder is ours alone. A reports folder carries a marker file, :data:`MARKER`; an existing
``--out`` without it that is not empty is refused (``force`` replaces it all the same), since
the run replaces the folder as a whole and would lose what another program writes there.
Holding the lock it first finishes or rolls back a commit an earlier run left half done (see
below; the journal is hostile input, :mod:`lab.commit_journal`) and removes the
scratch folders earlier runs left (``.<name>.staging-<pid>-*``, killed by SIGTERM or a crash;
one whose pid is still alive is kept, and only folders holding the marker are ever removed, so
a folder of the user's that happens to look like one stays). Every such action is printed on
stderr. Then it gives a scratch folder beside the reports folder, marked first, then seeded
with a copy of every file of the reports folder (a partial run merges into ``claims.csv`` and
the experiments' ``E*.json``, and keeps the pages of the experiments it did not run).
Everything is written there; only when the block ends without an error does the scratch folder
replace the reports folder, by one directory swap:

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

import errno
import os
import shutil
import signal
import sys
import threading
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from harness import ConfigError
from harness.disk_errors import storage_error
from harness.errors import SessionBusyError
from harness.store.session_lock import session_lock
from lab.commit_journal import (
    journal_path,
    old_name,
    read_journal,
    scratch_name,
    write_journal,
)
from lab.errors import ExperimentError

__all__ = ["LOCK_WAIT_SECONDS", "MARKER", "Stage", "Terminated", "mark", "recover", "staged"]

LOCK_WAIT_SECONDS = 3600.0
"""How long a run waits for another run writing the same reports folder."""

MARKER = ".ctxlab-reports"
"""The file that makes a folder a reports folder of ours (and a scratch folder removable)."""

MARKER_TEXT = (
    "This folder is written by `ctxlab run`, which replaces it as a whole on every run.\n"
    "Keep no other files here.\n"
)


def mark(folder: Path) -> None:
    """Make ``folder`` (existing) a reports folder of ours."""
    (folder / MARKER).write_text(MARKER_TEXT, encoding="utf-8")


def _marked(folder: Path) -> bool:
    """A real folder (not a link) holding our marker."""
    return folder.is_dir() and not folder.is_symlink() and (folder / MARKER).is_file()


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


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
def staged(out_dir: Path, action: str = "ctxlab run", force: bool = False) -> Iterator[Stage]:
    """A :class:`Stage` whose folder replaces ``out_dir`` when the block ends cleanly;
    ``force`` replaces an ``out_dir`` that is not a reports folder of ours too."""
    given = out_dir
    out_dir = Path(os.path.abspath(out_dir))  # ".." and "a/../.." name the folder they lead to
    if out_dir.exists() and not out_dir.is_dir():
        raise ConfigError(f"--out {given} is a file; give a folder (it is created if missing).")
    if out_dir.is_symlink():
        out_dir = out_dir.resolve()  # the swap replaces the folder the link names
    _refuse_a_project(out_dir, given)
    if not force:
        _refuse_a_foreign_folder(out_dir, given)
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


def _refuse_a_foreign_folder(out_dir: Path, given: Path) -> None:
    """An existing, non-empty ``out_dir`` without our marker holds someone else's files."""
    if not out_dir.is_dir() or _marked(out_dir):
        return
    names = sorted(p.name for p in out_dir.iterdir())
    if names:
        shown = ", ".join(names[:3]) + (", …" if len(names) > 3 else "")
        raise ConfigError(
            f"--out {given} is not a reports folder of ctxlab (no {MARKER} in it; it holds "
            f"{shown}); the run replaces the whole folder, so give a new or empty folder, or "
            "replace it all the same with `ctxlab run --force`."
        )


def recover(out_dir: Path) -> None:
    """Holding the lock: finish or roll back a commit an earlier run left half done, and
    remove the scratch folders of runs that are gone."""
    parent, name = _names(out_dir)
    out = parent / name
    journal = journal_path(parent, name)
    journal.with_name(journal.name + ".tmp").unlink(missing_ok=True)  # never became the journal
    entry = read_journal(parent, name, _say)
    if entry is not None:
        if not os.path.lexists(out) and entry.old.is_dir() and not entry.old.is_symlink():
            os.rename(entry.old, out)  # stopped between the two renames: the old folder goes back
            _say(f"ctxlab: put {out} back as it was before a run that stopped while committing")
        _sync(parent)
        journal.unlink()
        _sync(parent)
        _remove(entry.new, "the new folder of a commit that did not finish")
        _remove(entry.old, "the old folder of a commit that finished")
    ours = (scratch_name(name), old_name(name))
    for found in sorted(parent.iterdir()):
        pid = next((m.group(1) for m in (r.fullmatch(found.name) for r in ours) if m), None)
        if pid is not None and not _alive(int(pid)):
            _remove(found, f"the scratch folder of run {pid}, which is gone")


def _remove(folder: Path, what: str) -> None:
    """Remove ``folder`` when it is a marked folder of ours; say so, or say why it is kept."""
    if not os.path.lexists(folder):
        return
    if not _marked(folder):
        _say(f"ctxlab: kept {folder} ({what}): it holds no {MARKER}, so it may not be ours")
        return
    shutil.rmtree(folder, ignore_errors=True)
    _say(f"ctxlab: removed {folder} ({what})")


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
    """A copy of the reports folder: what a run merges into and the pages it keeps. The marker
    comes first, so a run killed while copying leaves a folder the next run may remove. A copy
    that fails (a full disk) is one sentence naming the first file that failed."""
    folder.mkdir()
    mark(folder)
    if not out_dir.is_dir():
        return
    failed: list[OSError] = []  # copytree keeps only each failure's text: keep the errors

    def copy(source: str, target: str) -> object:
        try:
            return shutil.copy2(source, target)
        except OSError as exc:
            failed.append(exc)
            raise

    try:
        shutil.copytree(out_dir, folder, symlinks=True, dirs_exist_ok=True, copy_function=copy)
    except shutil.Error as exc:  # one (source, target, why) per file that failed
        first = failed[0] if failed else OSError(errno.EIO, str(exc.args[0][0][2]))
        bare = OSError(first.errno, first.strerror)  # named by its source, not the scratch copy
        raise storage_error(bare, exc.args[0][0][0], "copy") from None
    except OSError as exc:
        raise storage_error(exc, out_dir, "copy") from None
    mark(folder)  # a forced foreign folder had none; ours had the same


def _commit(folder: Path, out_dir: Path) -> None:
    """Swap ``folder`` in for ``out_dir`` (see the module docstring)."""
    parent, name = _names(out_dir)
    out = parent / name
    _sync_tree(folder)
    old = parent / f".{name}.old-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    journal = journal_path(parent, name)
    write_journal(parent, name, folder, old)
    _sync(parent)
    if out.exists():
        os.rename(out, old)
    os.rename(folder, out)
    _sync(parent)
    journal.unlink()
    _sync(parent)
    shutil.rmtree(old, ignore_errors=True)


def _sync_tree(folder: Path) -> None:
    """Every file under ``folder`` and every folder in it on the disk, before the swap: the
    reports are written into the staging folder plainly (:func:`lab.report.build_reports`),
    the evidence pages in their subfolder too."""
    for root, _, names in os.walk(folder):
        for name in names:
            path = Path(root, name)
            if path.is_file() and not path.is_symlink():
                with open(path, "rb") as handle:
                    os.fsync(handle.fileno())
        _sync(Path(root))


def _sync(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
