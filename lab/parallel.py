"""Independent pieces of a run side by side, in forked worker processes, results in order.

``ctxlab run`` replays nine experiments that share nothing until their results are merged, then
renders six plots that share nothing either; on a machine with two cores or more they run in
worker processes. :func:`in_order` submits the heaviest piece first (so the longest one does not
start last) and yields the results in the order of the items, each as soon as it and every one
before it is done, so progress lines keep the report's order.

Workers are forked: they start with everything the parent imported, which is most of a run's
fixed cost. A process that has other threads is never forked (a lock another thread holds would
stay locked in the child); there, and where ``fork`` does not exist, or with ``jobs`` 1, the
pieces run one after the other in this process, which gives the same results.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TypeVar

from harness import ConfigError

__all__ = ["JOBS_ENV", "default_jobs", "heaviest_first", "in_order", "workers_for"]

Item = TypeVar("Item")
Result = TypeVar("Result")


JOBS_ENV = "CTXLAB_JOBS"
"""Overrides :func:`default_jobs` (a whole number of at least 1): the test suite sets it to 1,
so that its in-process runs reuse the plots it already drew (tests/support/plot_memo.py)."""


def default_jobs() -> int:
    """``$CTXLAB_JOBS`` when set, else the cores this process may use, at most 2 (``ctxlab
    run``'s pieces do not split finer: X-BENCH alone is about a third of the run's CPU)."""
    chosen = os.environ.get(JOBS_ENV, "").strip()
    if chosen:
        if not chosen.isdigit() or int(chosen) < 1:
            raise ConfigError(f"{JOBS_ENV} must be a whole number of at least 1, not {chosen!r}")
        return int(chosen)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(2, cores))


def workers_for(jobs: int, pieces: int) -> int:
    """How many worker processes ``pieces`` pieces get with ``jobs``: 0 (run them here) when one
    would do, when ``fork`` is missing, or when this process has other threads."""
    wanted = min(jobs, pieces)
    if wanted < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return 0
    if threading.active_count() > 1:
        return 0
    return wanted


def heaviest_first(items: Sequence[Item], weight: Callable[[Item], float]) -> list[int]:
    """The items' positions in the order they are submitted: heaviest first, ties in order."""
    return sorted(range(len(items)), key=lambda n: -weight(items[n]))


def in_order(
    work: Callable[[Item], Result],
    items: Sequence[Item],
    jobs: int,
    weight: Callable[[Item], float] = lambda _: 1.0,
) -> Generator[Result, None, None]:
    """``work(item)`` for each of ``items``, yielded in the items' order. ``work`` and the items
    must pickle (``work`` a module-level function) when workers run them; an exception raised by
    ``work`` reaches the caller when its result's turn comes."""
    workers = workers_for(jobs, len(items))
    if not workers:
        yield from (work(item) for item in items)
        return
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures: dict[int, Future[Result]] = {}
        try:
            for n in heaviest_first(items, weight):
                futures[n] = pool.submit(work, items[n])
            for n in range(len(items)):
                yield futures[n].result()
        finally:
            for future in futures.values():
                future.cancel()
