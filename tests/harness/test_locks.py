"""``harness.fs.locks.file_lock``: reentrant within a thread, exclusive across threads and
processes, a timeout that names what was locked, and free once its holder is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.errors import LockTimeoutError
from harness.fs.locks import file_lock, is_locked
from harness.fs.path import WorkspacePath
from harness.fs.root import SafeRoot


def test_a_thread_takes_its_own_lock_again_however_the_file_is_named(tmp_path: Path) -> None:
    by_path = tmp_path / "locks" / "memory.lock"
    by_root = WorkspacePath(SafeRoot(tmp_path), "locks/memory.lock")
    with file_lock(by_root, timeout=0), file_lock(by_path, timeout=0):
        assert not is_locked(by_path)  # reentrant: this thread may take it
    assert not is_locked(by_root)


def test_another_thread_waits_and_times_out_naming_what(tmp_path: Path) -> None:
    lock = tmp_path / "locks" / "memory.lock"
    errors: list[BaseException] = []

    def other() -> None:
        try:
            with file_lock(lock, timeout=0.1, what="MEMORY.md"):
                pass
        except LockTimeoutError as exc:
            errors.append(exc)

    with file_lock(lock):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert len(errors) == 1 and "MEMORY.md is locked" in str(errors[0])
    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert len(errors) == 1  # free again once released


HOLDER = r"""
import sys, time
from pathlib import Path
from harness.fs.locks import file_lock
with file_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""


def test_a_killed_holder_leaves_no_lock(tmp_path: Path) -> None:
    lock = tmp_path / "locks" / "consolidation.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert is_locked(lock)
        with pytest.raises(LockTimeoutError), file_lock(lock, timeout=0.05):
            pass
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=30)
    deadline = time.monotonic() + 10
    while is_locked(lock) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not is_locked(lock)
    assert lock.exists()  # the file stays (every waiter locks the same inode)
