"""Background work after a call (flush, maintenance), and waiting for it to finish.

In production their order is not guaranteed (``order="concurrent"``, two threads). Tests and
experiments fix it (``flush_first`` or ``maintenance_first``) so both orders are reproducible.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Literal, assert_never, get_args

from harness.errors import ConfigError

__all__ = ["BackgroundOrder", "BackgroundTasks"]

logger = logging.getLogger("harness.memory")

BackgroundOrder = Literal["concurrent", "flush_first", "maintenance_first"]
Task = Callable[[], object]


class BackgroundTasks:
    """Runs after-call tasks off the caller's thread; :meth:`await_quiescence` waits for them."""

    def __init__(self, order: BackgroundOrder = "concurrent") -> None:
        if order not in get_args(BackgroundOrder):
            raise ConfigError(
                f"background order must be one of {', '.join(get_args(BackgroundOrder))}, "
                f"not {order!r}"
            )
        self.order: BackgroundOrder = order
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memory")
        self._pending: set[Future[object]] = set()
        self._lock = threading.Lock()
        self.errors: list[BaseException] = []

    def after_call(self, flush: Task, maintenance: Task) -> None:
        """Queue the flush and the maintenance of one call, in this object's order."""
        if self.order == "concurrent":
            self._submit(flush)
            self._submit(maintenance)
        elif self.order == "flush_first":
            self._submit(lambda: (self._guarded(flush), self._guarded(maintenance)))
        elif self.order == "maintenance_first":
            self._submit(lambda: (self._guarded(maintenance), self._guarded(flush)))
        else:
            assert_never(self.order)

    def _submit(self, task: Task) -> None:
        future = self._pool.submit(self._guarded, task)
        with self._lock:
            self._pending.add(future)
        future.add_done_callback(self._forget)

    def _guarded(self, task: Task) -> object:
        try:
            return task()
        except Exception as exc:  # background work is best effort; the call already succeeded
            logger.warning("Background memory task failed: %s", exc)
            self.errors.append(exc)
            return None

    def _forget(self, future: Future[object]) -> None:
        with self._lock:
            self._pending.discard(future)

    def await_quiescence(self, timeout: float = 60.0) -> bool:
        """Wait until no task is pending; False when ``timeout`` seconds passed first."""
        with self._lock:
            pending = set(self._pending)
        _, not_done = wait(pending, timeout=timeout)
        return not not_done

    def close(self) -> None:
        self._pool.shutdown(wait=True)
