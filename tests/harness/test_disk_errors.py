"""A full disk or a read-only mount through ``HarnessAgent`` is one ``StorageError`` naming the
file and what to do, and no saved turn is lost.

The real thing where the machine allows it: a child process in its own user and mount
namespace (``unshare -rm``) on a 256 KiB tmpfs that fills up, or on a tmpfs remounted read-only.
Everywhere: the same errors injected at ``os.fsync``/``os.open`` in this process.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import TESTS

from harness.errors import StorageError
from harness.harness_agent import HarnessAgent
from harness.testing import FunctionModel

PROBE = TESTS / "support" / "disk_probe.py"
STORES = ["state", "eventlog"]


def _namespaces_work(tmp_path: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    mount = tmp_path / "check"
    mount.mkdir()
    command = f"mount -t tmpfs -o size=64k tmpfs {mount}"
    done = subprocess.run(["unshare", "-rm", "sh", "-c", command], capture_output=True)
    return done.returncode == 0


def _probe(tmp_path: Path, store: str, setup: str, turns: int) -> dict[str, object]:
    if not _namespaces_work(tmp_path):
        pytest.skip("no user+mount namespaces here (unshare -rm); the injected case still runs")
    mount = tmp_path / "mnt"
    mount.mkdir()
    script = setup.format(mount=mount) + f" && {sys.executable} {PROBE} {mount} {store} {turns}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("store", STORES)
def test_a_full_disk_is_a_storage_error_and_keeps_the_saved_turns(
    tmp_path: Path, store: str
) -> None:
    result = _probe(tmp_path, store, "mount -t tmpfs -o size=256k tmpfs {mount}", 400)
    assert result["error"] == "StorageError", result
    message = str(result["message"])
    assert "No space left on device" in message and "free some space" in message
    assert f"{tmp_path}/mnt/u/" in message  # the file is named
    made = int(str(result["made"]))
    assert made > 0 and int(str(result["reread"])) >= 2 * made  # every turn before it is saved


@pytest.mark.parametrize("store", STORES)
def test_a_read_only_mount_is_a_storage_error(tmp_path: Path, store: str) -> None:
    setup = "mount -t tmpfs tmpfs {mount} && mkdir -p {mount}/u && mount -o remount,ro {mount}"
    result = _probe(tmp_path, store, setup, 1)
    assert result["error"] == "StorageError", result
    assert "read-only" in str(result["message"]) and f"{tmp_path}/mnt/u" in str(result["message"])


@pytest.mark.parametrize("store", STORES)
def test_an_injected_enospc_is_a_storage_error_naming_the_file(
    tmp_path: Path, store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = FunctionModel(lambda r: "ok")
    agent = HarnessAgent(
        model, workspace_root=tmp_path, user_id="u", session_id="s1", store=store,  # type: ignore[arg-type]
        disable_memory_hooks=True,
    )  # fmt: skip
    agent.call("first")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(StorageError) as info:
        agent.call("second")
    monkeypatch.undo()
    named = info.value.path
    assert str(tmp_path / "u") in str(named) and str(named) in str(info.value)
    assert info.value.errno == errno.ENOSPC and "free some space" in str(info.value)
