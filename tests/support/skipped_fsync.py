"""``os.fsync`` skipped in the test processes: no test cuts the power.

An fsync protects a write against a power cut and nothing else: a process killed with SIGKILL
(the fault-injection tests) loses nothing the kernel already holds. No test cuts the power, so
no test can see an fsync's effect, only pay for it: the report a test builds writes about 160
files atomically, two fsyncs each, and a session store fsyncs every turn (a cProfile of
tests/lab/test_claims_plugin.py on the loaded 2-core machine: 4,370 fsyncs, 12.2 s of its
63 s). The tests that are about fsync (how many a turn costs, an fsync that fails, the report's
files and folders synced) patch ``os.fsync`` themselves and count or fail through their own
stand-in, so they read the same as before; a descriptor that is not open still fails, as
``os.fsync`` would (``os.fstat``).

The root ``conftest.py`` installs it before any test, so the forked children of the
fault-injection tests inherit it; ``ctxlab`` subprocesses run the real one.
``CTXLAB_TESTS_FSYNC=real`` keeps the real ``os.fsync`` in the test processes too.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

REAL = os.fsync
"""The real ``os.fsync``."""
SWITCH = "CTXLAB_TESTS_FSYNC"
"""The environment variable that keeps the real fsync when it is ``real``."""


def fsync_skipped(fd: Any) -> None:
    """What ``os.fsync(fd)`` checks without the flush: ``fd`` (a descriptor or an object with
    ``fileno()``) is open, else ``OSError`` as from ``os.fsync``."""
    os.fstat(fd if isinstance(fd, int) else fd.fileno())


def install() -> Callable[[], None]:
    """Replace ``os.fsync`` by :func:`fsync_skipped` unless ``CTXLAB_TESTS_FSYNC=real``; the
    function returned puts back what was there."""
    if os.environ.get(SWITCH) == "real":
        return lambda: None
    before = os.fsync
    os.fsync = fsync_skipped

    def uninstall() -> None:
        os.fsync = before

    return uninstall


__all__ = ["REAL", "SWITCH", "fsync_skipped", "install"]
