"""Project-wide test setup: no test may reach the network unless it talks to this machine.

Tests run real HTTP against servers on 127.0.0.1, and cassettes replay without any socket; a
connection to any other address is an unplanned network call and fails the test at once
(tests/support/network_guard.py, installed below for the whole process).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

BYTECODE_CACHE = Path(__file__).resolve().parent / ".pytest_cache" / "pycache"
"""Where a test session keeps its bytecode when ``PYTHONDONTWRITEBYTECODE`` is set."""


def _keep_bytecode_in_the_cache() -> None:
    """With ``PYTHONDONTWRITEBYTECODE`` set, nothing was byte-compiled once: every xdist worker
    and every ``ctxlab`` subprocess compiled and assertion-rewrote each module again (13.2 s of
    CPU to collect, 5.6 s with the bytecode kept; ``pytest --collect-only -n 0``). The tree still
    gets no ``__pycache__``: this session and its subprocesses (the environment is inherited)
    write and read their bytecode under pytest's own cache folder, :data:`BYTECODE_CACHE`."""
    if not sys.dont_write_bytecode:
        return
    sys.pycache_prefix = str(BYTECODE_CACHE)
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


_keep_bytecode_in_the_cache()  # before the imports below: they are compiled once too

import httpcore  # noqa: F401, E402  (imported before any test: see below)
import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402
from support import (  # noqa: E402
    frozen_exit,
    network_guard,
    quick_retries,
    shared_ssl,
    skipped_fsync,
)

# No test cuts the power, so none can see an fsync's effect, only pay for it (the report's
# atomic writes, the stores' per-turn syncs): tests/support/skipped_fsync.py. Installed here,
# before any test, so the fault-injection tests' forked children inherit it too.
skipped_fsync.install()
# No test is about how long the real clock waits between retries, only pay for it (about 34 s of
# idle cores in a cold `pytest -n 2`, most of it in backoffs): tests/support/quick_retries.py.
quick_retries.install()
# Every httpx client loaded certifi's CA bundle into a context of its own, which no test uses:
# one default context per process (tests/support/shared_ssl.py).
shared_ssl.install()
# A worker's shutdown walked its whole heap in the collector while the controller waited for it
# (1.6-1.8 s at the end of `pytest -n 2`): tests/support/frozen_exit.py.
frozen_exit.install()
# No test reaches the network unless it talks to this machine: tests/support/network_guard.py
# (for the whole process, not set again before each test).
network_guard.install()

# pytester's in-process runs (tests/lab/test_claims_plugin.py) remove, when they end, every
# module first imported inside them. httpx imports httpcore only when its first client is made
# and maps httpcore's exceptions to its own by class: had that happened inside such a run, the
# httpcore imported again afterwards would raise exceptions httpx no longer knows, and a later
# test in the same process would see a raw httpcore.ConnectError where the harness promises
# one sentence. Importing it here keeps one httpcore for the whole session.

# The suite handed to lab's plugin: one test per claim of reports/claims.csv, record modes,
# reports (see the plugins' docstrings).
pytest_plugins = [
    "experiments.pytest_plugin",
    "pytester",
    "support.quick_examples",
    "support.cpu_durations",
]

Uninstall = Callable[[], None]
"""What a memo's install returns: the function that takes it off again."""

settings.register_profile("fast", max_examples=60, deadline=None)
settings.register_profile(
    "thorough",
    max_examples=2_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("CTXLAB_HYPOTHESIS_PROFILE", "fast"))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``--dist loadgroup``), a module whose tests share a module-scoped
    fixture (a built report, a replayed experiment) runs on one worker, so the fixture is
    built once per session, not once per worker that gets one of its tests."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("xdist_group") is not None:
            continue
        scopes = {d.scope for defs in info.name2fixturedefs.values() for d in defs}
        if "module" in scopes:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


def _plots_drawn_once(request: pytest.FixtureRequest) -> Uninstall:
    """Each plot drawn once for its view and code (tests/support/plot_memo.py), the drawings
    kept in pytest's cache folder for the other worker and the later sessions: ``ctxlab run``
    draws its plots in this process, not in forked workers whose drawings the memo would never
    see (the worker processes have tests of their own: tests/lab/test_parallel.py)."""
    from support.plot_memo import MEMO  # matplotlib: not in processes that run no test

    os.environ["CTXLAB_JOBS"] = "1"  # inherited by the ctxlab subprocesses too
    cache = getattr(request.config, "cache", None)
    return MEMO.install(cache.mkdir("ctxlab-plots") if cache is not None else None)


def _reports_built_once() -> Uninstall:
    """Each report build the runner makes (``ctxlab run`` in process, the claims plugin's inner
    runs) made once per process for its inputs: folder, cassettes, jobs, suite and code
    (tests/support/report_memo.py); a repeat writes the same files through the report's own
    writer."""
    from support.report_memo import MEMO

    return MEMO.install()


def _shared_folder(
    request: pytest.FixtureRequest, factory: pytest.TempPathFactory, cached: str, temporary: str
) -> Path:
    """Where a session memo keeps what it computed: pytest's cache folder ``cached`` (shared by
    the xdist workers and the later sessions), else ``temporary`` in the session's temporary
    tree (under the workers' common parent when xdist runs)."""
    cache = getattr(request.config, "cache", None)
    if cache is not None:
        return Path(cache.mkdir(cached))
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return factory.getbasetemp().parent / temporary
    return factory.getbasetemp() / temporary


def _x_bench_replayed_once(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Uninstall:
    """X-BENCH replayed once for its cassettes and code (tests/support/bench_memo.py): the
    claims table, the X-BENCH tests and the order-replay test read the same views. They are
    kept in pytest's cache folder, so the xdist workers and the later sessions of the same
    cassettes and code share them; without the cache (``-p no:cacheprovider``), the xdist
    workers share a folder of the session's temporary tree."""
    from support.bench_memo import MEMO

    shared = None
    cache = getattr(request.config, "cache", None)
    if cache is not None:
        shared = cache.mkdir("ctxlab-x-bench")
    elif os.environ.get("PYTEST_XDIST_WORKER"):
        shared = tmp_path_factory.getbasetemp().parent / "x-bench-views"
    return MEMO.install(shared)


def _scripted_views_measured_once(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Uninstall:
    """A scripted experiment's view (E5) measured once for its code
    (tests/support/scripted_memo.py): the claims table, the report and replay tests and the
    in-process ``ctxlab run`` read the same view, kept in pytest's cache folder for the other
    xdist worker and the later sessions (without it, in a folder the workers share)."""
    from support.scripted_memo import MEMOS

    shared = _shared_folder(request, tmp_path_factory, "ctxlab-views", "scripted-views")
    uninstalls = [memo.install(shared) for memo in MEMOS]

    def uninstall() -> None:
        for each in reversed(uninstalls):
            each()

    return uninstall


def _reports_copied_once_built(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Uninstall:
    """A report folder the tests only read built once for its inputs and code
    (tests/support/built_reports.py) and copied to each test that asks for one: kept in
    pytest's cache folder for the other xdist worker and the later sessions; without the cache
    (``-p no:cacheprovider``), in a folder of the session's temporary tree the workers share."""
    from support.built_reports import BUILT

    shared = _shared_folder(request, tmp_path_factory, "ctxlab-reports", "built-reports")
    return BUILT.install(shared)


@pytest.fixture(scope="session", autouse=True)
def _computed_once(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """The session's memos above, installed in this order and taken off in the reverse one.

    One autouse fixture rather than one per memo: pytest looks up every autouse fixture before
    each test, even one of session scope that is already set up, and five of them cost about
    1 s of CPU over 3,000 empty tests (``pytest -n 0``). Installed when the first test of this
    process is set up, as before: a process that runs no test (the xdist controller) imports
    none of them (matplotlib, pandas)."""
    uninstalls = [
        _plots_drawn_once(request),
        _reports_built_once(),
        _x_bench_replayed_once(request, tmp_path_factory),
        _scripted_views_measured_once(request, tmp_path_factory),
        _reports_copied_once_built(request, tmp_path_factory),
    ]
    yield
    for uninstall in reversed(uninstalls):
        uninstall()
