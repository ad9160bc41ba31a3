"""``ctxlab bench``'s progress line, after each run ends: runs done and running, requests per
second, refusals (429 and 503) and the time left at the pace so far."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["GridProgress"]


class GridProgress:
    """Builds the line; ``requests`` and ``refusals`` read the endpoint's counts."""

    def __init__(
        self,
        requests: Callable[[], int],
        refusals: Callable[[], int],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.requests, self.refusals, self.clock = requests, refusals, clock
        self.started = clock()
        self.first_done: int | None = None
        """Runs already done (kept) when the first run ended: they took no time."""

    def line(self, done: int, running: int, total: int) -> str:
        elapsed = max(self.clock() - self.started, 1e-9)
        if self.first_done is None:
            self.first_done = done - 1
        played = done - self.first_done
        left = (total - done) * elapsed / played if played else 0.0
        return (
            f"[{done}/{total} runs done, {running} running; {self.requests() / elapsed:.1f} "
            f"requests/s; {self.refusals()} refused (429/503); ETA {_clock(left)}]"
        )


def _clock(seconds: float) -> str:
    minutes, second = divmod(round(seconds), 60)
    hours, minute = divmod(minutes, 60)
    return f"{hours}:{minute:02d}:{second:02d}" if hours else f"{minute}:{second:02d}"
