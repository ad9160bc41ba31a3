"""Reports are written by one run at a time and committed all-or-nothing: a run
killed at any point of its commit leaves (after the next run's recovery) the whole old
reports folder or the whole new one; a run stopped by SIGTERM removes its scratch folder itself
(one killed by SIGKILL leaves it to the next run). That two ``ctxlab run`` into one ``--out``
never lose each other's results is the probe ``two-ctxlab-run-one-out`` (docs/probes.md)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lab.staging import MARKER, mark, staged

OLD = {"E1.md": "old E1\n", "index.html": "old index\n", "claims.csv": "old claims\n"}
NEW = {"E1.md": "new E1\n", "index.html": "new index\n", "claims.csv": "new claims\n"}


def _commit_killed_at(out: Path, kill_at: int, when: str) -> int:
    """In a forked child: commit :data:`NEW` over ``out``, SIGKILLed just before (or just
    after) the ``kill_at``-th rename of the commit; returns the renames counted when the
    commit ended first."""
    renames = 0
    real_rename, real_replace = os.rename, os.replace

    def counted(real: Callable[..., None]) -> Callable[..., None]:
        def move(*args: Any, **kwargs: Any) -> None:
            nonlocal renames
            renames += 1
            if renames == kill_at and when == "before":
                os.kill(os.getpid(), signal.SIGKILL)  # the crash, just before this rename
            real(*args, **kwargs)
            if renames == kill_at and when == "after":
                os.kill(os.getpid(), signal.SIGKILL)  # ... or just after it

        return move

    with staged(out) as stage:
        for name, text in NEW.items():
            (stage.folder / name).write_text(text)
        os.rename, os.replace = counted(real_rename), counted(real_replace)  # type: ignore[assignment]
    return renames


def _killed_commit(out: Path, kill_at: int, when: str) -> tuple[int, str]:
    """Run :func:`_commit_killed_at` in a real child process, forked from this one (so no
    second interpreter starts and imports lab for each kill); returns the child's wait status
    and what it printed on the pipe (its renames, or the traceback it failed with)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the test runner
        os.close(read_end)
        try:
            said = str(_commit_killed_at(out, kill_at, when))
        except BaseException:
            said = traceback.format_exc()
        os.write(write_end, said.encode())
        os._exit(0 if said.isdigit() else 1)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        said = pipe.read()
    _, status = os.waitpid(pid, 0)
    return status, said


HELD_RUN = """
import signal, sys, time
from pathlib import Path
from lab import staging

out, ready = Path(sys.argv[1]), Path(sys.argv[2])
with staging.staged(out) as stage:
    (stage.folder / "E1.md").write_text("half-built")
    ready.touch()
    signal.pause()  # until SIGTERM
"""


def _files(folder: Path) -> dict[str, str]:
    """The reports in ``folder``, its marker left out."""
    if not folder.is_dir():
        return {}
    return {p.name: p.read_text() for p in folder.iterdir() if p.name != MARKER}


def _write(folder: Path, files: dict[str, str]) -> None:
    """A reports folder of ours (marked) holding ``files``."""
    folder.mkdir(parents=True, exist_ok=True)
    mark(folder)
    for name, text in files.items():
        (folder / name).write_text(text)


def _python(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip


def _wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.005)  # a poll of the event the child writes


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_commit_killed_at_any_rename_leaves_the_old_or_the_new_folder(
    tmp_path: Path, when: str
) -> None:
    kill_at, outcomes = 1, set()
    while True:
        case = tmp_path / f"k{kill_at}"
        out = case / "out"
        _write(out, OLD)
        status, said = _killed_commit(out, kill_at, when)
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            renames = int(said)
            break
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, said
        with staged(out) as stage:  # the next run: recovers, then writes nothing
            stage.discard()
        found = _files(out)
        assert found in (OLD, NEW), f"killed at rename {kill_at}: {found}"
        outcomes.add("new" if found == NEW else "old")
        assert sorted(p.name for p in case.iterdir()) == ["out"]  # no scratch, journal or lock
        kill_at += 1
    assert kill_at > 1 and renames == kill_at - 1
    assert _files(out) == NEW
    if when == "after":  # killed once the new folder was in place: it stays
        assert "new" in outcomes


def test_a_run_stopped_by_sigterm_removes_its_scratch_folder_itself(tmp_path: Path) -> None:
    out, ready = tmp_path / "out", tmp_path / "ready"
    _write(out, OLD)
    proc = _python(HELD_RUN, str(out), str(ready))
    _wait_for(ready, proc)
    assert any(p.name.startswith(".out.staging-") for p in tmp_path.iterdir())
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGTERM  # it still ends by the signal
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "ready"]  # no scratch, no lock
    assert _files(out) == OLD


SIGTERM_IN_SWAP = """
import os, signal, sys
from pathlib import Path
from lab import staging

out = Path(sys.argv[1])
real_rename = os.rename

def rename(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)  # arrives while the swap runs
    return real_rename(*args, **kwargs)

with staging.staged(out) as stage:
    for name, text in {new!r}.items():
        (stage.folder / name).write_text(text)
    os.rename = rename
print("not reached")
""".replace("{new!r}", repr(NEW))


def test_a_sigterm_during_the_swap_waits_for_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _write(out, OLD)
    proc = _python(SIGTERM_IN_SWAP, str(out))
    stdout, _ = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGTERM and "not reached" not in stdout
    assert _files(out) == NEW  # the swap was finished first: no journal left to recover
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_the_scratch_folders_of_dead_runs_are_removed_by_the_next_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _write(out, OLD)
    gone = _python("pass")
    gone.communicate(timeout=60)  # its pid is gone: a run killed by SIGKILL, say
    _write(tmp_path / f".out.staging-{gone.pid}-0123abcd", {})
    alive = _python("import sys; sys.stdin.read()")  # a live run's scratch folder is kept
    live = tmp_path / f".out.staging-{alive.pid}-0123abcd"
    _write(live, {})
    try:
        with staged(out) as stage:
            stage.discard()
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out", live.name])
        assert _files(out) == OLD
    finally:
        alive.communicate("", timeout=60)
        shutil.rmtree(live)


def test_the_current_folder_or_a_checkout_is_never_swapped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.errors import ConfigError

    (tmp_path / "project/.git").mkdir(parents=True)
    (tmp_path / "project/keep.txt").write_text("mine")
    monkeypatch.chdir(tmp_path / "project")
    for out in (Path("."), tmp_path, tmp_path / "project"):
        with pytest.raises(ConfigError, match="give a folder of its own"), staged(out):
            pass
    assert (tmp_path / "project/keep.txt").read_text() == "mine"


@pytest.mark.parametrize("out", ["..", "notes/../..", "../inner/.."])
def test_an_out_with_dot_dot_is_the_folder_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, out: str
) -> None:
    """A probe found it: ``--out ..`` from a project was compared unnormalised, so the run
    copied the folder of all projects into a scratch folder inside the project and would have
    swapped it."""
    from harness.errors import ConfigError

    cwd = tmp_path / "outer" / "inner"
    (cwd / "notes").mkdir(parents=True)
    monkeypatch.chdir(cwd)
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(ConfigError, match="give a folder of its own"), staged(Path(out)):
        pass
    assert sorted(tmp_path.rglob("*")) == before  # no lock, no scratch copy


def test_a_folder_holding_checkouts_is_never_swapped(tmp_path: Path) -> None:
    from harness.errors import ConfigError

    (tmp_path / "home" / "project" / ".git").mkdir(parents=True)
    (tmp_path / "home" / "project" / "main.py").write_text("x = 2")
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(ConfigError, match="holds checkouts"), staged(tmp_path / "home"):
        pass
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.parametrize(
    "journal",
    [
        "[" * 100_000 + "]" * 100_000,  # nested too deep for the parser
        "{not json",
        '{"new": ".reports.staging-1-0123abcd"}',  # no old folder
        '{"new": "", "old": ".."}',  # would name the parent and its parent for deletion
    ],
    ids=["nested-too-deep", "not-json", "no-old", "outside"],
)
def test_a_damaged_commit_journal_is_moved_aside_and_nothing_is_deleted(
    tmp_path: Path, journal: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from lab.staging import recover

    out = tmp_path / "reports"
    _write(out, {"claims.csv": "old claims\n"})
    planted = tmp_path / ".reports.commit"
    planted.write_text(journal, encoding="utf-8")
    recover(out)
    [said] = capsys.readouterr().err.strip().splitlines()
    assert f"ignored the commit journal {planted}" in said
    assert _files(out) == {"claims.csv": "old claims\n"}
    assert (tmp_path / ".reports.commit.corrupt").read_text(encoding="utf-8") == journal
