"""A retry's backoff waits at most :data:`LONGEST` in the test processes: no test is about how
long the real clock waits.

``ChatClient`` waits between attempts (0.5 s, then 1 s by default, or what a ``Retry-After``
asks), with ``time.sleep`` unless it is given a ``sleep`` of its own. Tests of a server that
refuses, hangs or answers 5xx only need the retries to happen, yet each paid the whole backoff
on the clock: a cold ``pytest -n 2`` left its two cores idle for about 34 s, most of it in such
waits (two of them 2.3 and 2.7 s). The tests that are about the waits (how long, capped, jittered,
within the total timeout) give the client their own ``sleep`` and read what it was asked, so
they read the same as before; the client still decides every wait as it would (and whether a
retry could start before the total timeout ends) from the delay it asked for.

The root ``conftest.py`` installs it before any test; ``ctxlab`` subprocesses wait as users'
do. ``CTXLAB_TESTS_BACKOFF=real`` keeps the real waits in the test processes too.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from harness.client import ChatClient

LONGEST = 0.01
"""The longest a retry's backoff sleeps in a test process, in seconds."""
SWITCH = "CTXLAB_TESTS_BACKOFF"
"""The environment variable that keeps the real waits when it is ``real``."""


def short_sleep(seconds: float) -> None:
    """``time.sleep`` of at most :data:`LONGEST`."""
    time.sleep(min(seconds, LONGEST))


def install() -> Callable[[], None]:
    """Make :func:`short_sleep` ``ChatClient``'s default ``sleep`` unless
    ``CTXLAB_TESTS_BACKOFF=real``; the function returned puts back what was there."""
    if os.environ.get(SWITCH) == "real":
        return lambda: None
    defaults = ChatClient.__init__.__kwdefaults__
    assert defaults is not None and "sleep" in defaults, "ChatClient takes no sleep= any more"
    before = defaults["sleep"]
    defaults["sleep"] = short_sleep

    def uninstall() -> None:
        defaults["sleep"] = before

    return uninstall


__all__ = ["LONGEST", "SWITCH", "install", "short_sleep"]
