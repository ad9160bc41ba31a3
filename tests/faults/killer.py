"""Run a worker in a real child process and kill it with SIGKILL.

The child is forked (no second interpreter start-up, so hundreds of kills stay cheap) and
reports each acknowledged write as one line on a pipe, written before it goes on; the parent
reads the pipe until the child is dead, so it knows every acknowledgement the child made.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Worker = Callable[..., None]


@dataclass
class Run:
    """What the parent saw of one killed child."""

    acked: list[str] = field(default_factory=list)
    error: str | None = None
    """A traceback when the worker failed on its own before the kill."""
    killed: bool = False


def run_and_kill(
    worker: Worker,
    args: tuple[Any, ...],
    *,
    delay: float,
    wait_for: str | None = None,
    ready: threading.Thread | None = None,
    timeout: float = 20.0,
) -> Run:
    """Fork, run ``worker(*args, ack)`` in the child, and SIGKILL it ``delay`` seconds after it
    started (after it acknowledged ``wait_for``, or after the thread ``ready`` ended, when
    given)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the test runner
        os.close(read_end)
        _child(worker, args, write_end)
    os.close(write_end)
    run = Run()
    seen = threading.Event()
    reader = threading.Thread(target=_read, args=(read_end, run, wait_for, seen), daemon=True)
    reader.start()
    if wait_for is not None and not seen.wait(timeout):
        run.error = run.error or f"the worker never reported {wait_for!r}"
    if ready is not None:
        ready.join(timeout)
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    run.killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    reader.join(timeout)
    return run


def _child(worker: Worker, args: tuple[Any, ...], write_end: int) -> None:
    def ack(token: str) -> None:
        os.write(write_end, f"ACK {token}\n".encode())

    try:
        worker(*args, ack)
        os.write(write_end, b"DONE\n")
    except BaseException:
        text = traceback.format_exc().replace("\n", "\\n")
        os.write(write_end, f"ERR {text}\n".encode())
    finally:
        time.sleep(60)  # wait for the kill, so the parent always kills a live process
        os._exit(0)


def _read(fd: int, run: Run, wait_for: str | None, seen: threading.Event) -> None:
    with os.fdopen(fd, "rb") as pipe:
        for raw in pipe:
            line = raw.decode().rstrip("\n")
            if line.startswith("ACK "):
                token = line[4:]
                if token == wait_for:
                    seen.set()
                else:
                    run.acked.append(token)
            elif line.startswith("ERR "):
                run.error = line[4:].replace("\\n", "\n")
                seen.set()
