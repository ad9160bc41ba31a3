"""A local model server never outlives the recording that started it.

Seen while recording X-BENCH: ``ctxlab record`` stopped by SIGTERM left its llama.cpp server
generating a runaway answer on a core for minutes, and a recording killed with SIGKILL can run
no cleanup at all. Three guards, each tested with real processes: ``ctxlab record`` (and
``bench``, ``serve-local``) turn SIGTERM into an interrupt, so the server's context manager
stops it; the launcher exits by itself once its parent is gone; and on Linux every server,
llama.cpp's own ``llama-server`` included, asks the kernel for SIGTERM when its parent dies.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import lab
from lab import cli

DEADLINE = 30.0
SLEEPER = "import time; time.sleep(120)"


def _ended(pid: int) -> bool:
    """The process is gone, or a zombie nobody reaps (a container's init may not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state == "Z"


def _wait_ended(pid: int) -> bool:
    started = time.monotonic()
    while time.monotonic() - started < DEADLINE:
        if _ended(pid):
            return True
        time.sleep(0.05)
    return False


def _start(script: str) -> tuple[subprocess.Popen[str], int]:
    """Run ``script``, which prints the pid of the child it started; return both."""
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.strip().isdigit(), line
    return process, int(line)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_a_terminated_recording_stops_its_server() -> None:
    script = f"""
import sys, time
from lab.cli import sigterm_as_interrupt
from lab.recorder.local.server import _server_process
sigterm_as_interrupt()
try:
    with _server_process([sys.executable, "-c", {SLEEPER!r}], lambda _: None) as (server, _):
        print(server.pid, flush=True)
        time.sleep(120)
except KeyboardInterrupt:
    sys.exit(130)
"""
    recording, server = _start(script)
    try:
        recording.send_signal(signal.SIGTERM)
        assert recording.wait(timeout=DEADLINE) == 130
        assert _wait_ended(server), "the server outlived the terminated recording"
    finally:
        recording.kill()
        _kill(server)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_the_launcher_exits_when_its_parent_is_killed() -> None:
    child = (
        "import sys, time; from lab.recorder.local.det_server import watch_parent; "
        "watch_parent(int(sys.argv[1]), 0.05); print('watching', flush=True); time.sleep(120)"
    )
    script = f"""
import os, subprocess, sys, time
server = subprocess.Popen([sys.executable, "-c", {child!r}, str(os.getpid())])
print(server.pid, flush=True)
time.sleep(120)
"""
    recording, server = _start(script)
    try:
        assert recording.stdout is not None
        assert recording.stdout.readline().strip() == "watching"  # the child shares the pipe
        recording.kill()  # SIGKILL: no cleanup of its own runs
        recording.wait(timeout=DEADLINE)
        assert _wait_ended(server), "the launcher outlived its killed parent"
    finally:
        _kill(server)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


class Installed(Exception):
    """Raised by the stand-in for the SIGTERM handler: the command installed it."""


@pytest.mark.parametrize(
    "argv",
    [
        ["record", "X-BENCH", "--provider", "local", "--model", "qwen0.5b"],
        ["serve-local", "--model", "qwen0.5b"],
        ["bench", "--provider", "local"],
    ],
)
def test_the_commands_that_start_a_server_take_sigterm_as_an_interrupt(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def installed() -> None:
        raise Installed

    monkeypatch.setattr(cli, "sigterm_as_interrupt", installed)
    # an experiment's own command takes it from lab's public face (X-BENCH's bench)
    monkeypatch.setattr(lab, "sigterm_as_interrupt", installed, raising=False)
    with pytest.raises(Installed):
        cli.main(argv)


def test_the_server_is_told_which_process_to_outlive_none_of() -> None:
    from lab.recorder.local.det_server import PARENT_ENV
    from lab.recorder.local.server import _child_env

    assert _child_env()[PARENT_ENV] == str(os.getpid())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG)")
def test_a_server_that_cannot_watch_its_parent_dies_with_it() -> None:
    # llama.cpp's own llama-server (E4) has no watchdog: the kernel's parent-death signal,
    # asked for between fork and exec, stops it when the recording is killed with SIGKILL.
    script = f"""
import sys, time
from lab.recorder.local.server import _server_process
with _server_process([sys.executable, "-c", {SLEEPER!r}], lambda _: None) as (server, _):
    print(server.pid, flush=True)
    time.sleep(120)
"""
    recording, server = _start(script)
    try:
        recording.kill()  # SIGKILL: the context manager's cleanup never runs
        recording.wait(timeout=DEADLINE)
        assert _wait_ended(server), "the server outlived its killed recording"
    finally:
        _kill(server)
