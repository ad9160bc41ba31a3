"""A test process freezes its heap as it exits (tests/support/frozen_exit.py), after the exit
handlers registered later."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import frozen_exit

SUPPORT = Path(frozen_exit.__file__).resolve().parent.parent

CHILD = """
import atexit, gc, sys
sys.path.insert(0, {support!r})
atexit.register(lambda: print("after", gc.get_freeze_count() > 0))
if {install}:
    from support import frozen_exit
    frozen_exit.install()
atexit.register(lambda: print("before", gc.get_freeze_count() > 0))
keep = [[n] for n in range(50_000)]
"""


def _exit_lines(install: bool) -> list[str]:
    code = CHILD.format(support=str(SUPPORT), install=install)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split("\n")[:-1]


def test_the_heap_is_frozen_after_the_handlers_registered_later() -> None:
    assert _exit_lines(install=True) == ["before False", "after True"]


def test_without_it_nothing_is_frozen() -> None:
    assert _exit_lines(install=False) == ["before False", "after False"]
