"""X-BENCH replayed once per test session (it is the tests' heaviest replay).

Replaying X-BENCH (486 conversation runs over 395 cassettes) is the heaviest thing the tests
do, and several read the same results: the X-BENCH claims of the claims table (through the
pytest plugin's ``run_one``), the model-free view of tests/experiments/test_x_bench.py, and the
ordinary replay the order-replay test compares with. :data:`MEMO` wraps
:func:`experiments.x_bench.measure` (installed by the root ``conftest.py``) so that a replay it
has made before in this session returns the same view.

The key is a digest of the replay's inputs: every file of the cassette folder's ``X-BENCH/``,
every file of ``harness/``, ``lab/`` and ``experiments/`` (the code), ``pyproject.toml`` and
``constraints.txt`` (what is installed, as asked), the Python and the version of every installed
distribution (as found). Only an ordinary reproduction is remembered
(``replay`` mode, ``body`` matching, no other setting changed): an order replay (mutation
testing) always runs, and so does any replay inside :meth:`BenchMemo.fresh` (a test that
changes the code under it in process).

The views are kept in a folder (the root ``conftest.py`` gives pytest's cache folder,
``.pytest_cache/d/ctxlab-x-bench``, so a session whose cassettes and code are those of an
earlier one reads that session's view instead of replaying again). The first process to need a
view replays it under a lock on the folder and writes it, the others (xdist workers, later
sessions) read it (:func:`lab.views.from_data` of :func:`~lab.views.to_data`); the
:data:`KEEP` views read or written last are kept, the older ones removed.

The replays a process makes share their model-free plays (:attr:`BenchMemo.free_runs`, handed
to :func:`~experiments.x_bench.measure`): the model-free conditions play the same turns with
cassettes and without, so the replay without cassettes (tests/experiments/test_x_bench.py, on
the claims' xdist worker) reads the plays of the one with them, or the other way round.
"""

from __future__ import annotations

import functools
import hashlib
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Protocol

import experiments.x_bench as x_bench
from experiments.x_bench.runs import FreeRuns
from experiments.x_bench.view import XBenchView
from lab.experiment import RunSettings
from support import stored_views
from support.memo_switch import MemoSwitch
from support.stored_views import stored_or_made

SOURCE_ROOT = Path(__file__).resolve().parents[2]
CODE = ("harness", "lab", "experiments")
"""The folders whose files are the code of a replay."""
PINS = ("pyproject.toml", "constraints.txt")
"""The files that say what is installed: a stored view must not outlive a change to either."""
KEEP = 8
"""How many stored views a shared folder keeps (the ones read or written last)."""


class Measure(Protocol):
    """:func:`experiments.x_bench.measure`'s signature."""

    def __call__(self, settings: RunSettings, free_runs: FreeRuns | None = None) -> XBenchView: ...


def _files_digest(digest: hashlib._Hash, root: Path) -> None:
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if "__pycache__" in path.parts:
            continue
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())


def _installed() -> list[str]:
    """``name==version`` of every installed distribution, sorted."""
    return sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions())


@functools.cache
def code_digest(root: Path = SOURCE_ROOT) -> str:
    """The digest of the code a replay runs (once per process): the files of :data:`CODE`
    and :data:`PINS` under ``root``, the Python and every installed distribution's version."""
    digest = hashlib.sha256(sys.version.encode())
    for name in _installed():
        digest.update(name.encode() + b"\0")
    for pin in PINS:
        path = root / pin
        found = hashlib.sha256(path.read_bytes()).digest() if path.is_file() else b"absent"
        digest.update(pin.encode() + b"\0" + found)
    for folder in CODE:
        _files_digest(digest, root / folder)
    return digest.hexdigest()


def replay_key(settings: RunSettings) -> str | None:
    """The key of an ordinary reproduction of X-BENCH with ``settings``; None for any other."""
    plain = RunSettings(settings.cassette_root, progress=settings.progress)
    if settings != plain:
        return None
    digest = hashlib.sha256(code_digest().encode())
    cassettes = Path(settings.cassette_root) / x_bench.ID
    if cassettes.is_dir():
        _files_digest(digest, cassettes)
    return digest.hexdigest()


def prune(folder: Path, keep: int) -> None:
    """Remove the stored views of ``folder`` but the ``keep`` read or written last (with their
    lock files)."""
    stored_views.prune(folder, "x-bench", keep)


class BenchMemo(MemoSwitch):
    """The session's X-BENCH views, by :func:`replay_key`."""

    def __init__(self) -> None:
        self.views: dict[str, XBenchView] = {}
        self.shared: Path | None = None
        """The folder the stored views are in, shared by xdist workers and later sessions
        (None: this process only)."""
        self.replays = 0
        """Replays this process made (for the memo's own tests)."""
        self.free_runs = FreeRuns()
        """The model-free plays of this process's replays: the replay without cassettes (the
        model-free view of tests/experiments/test_x_bench.py) and the one with them (the claims)
        play the same model-free runs, so the second reads the first's. Only an ordinary
        reproduction of this process's code shares them (a replay inside :meth:`fresh`, or an
        order replay, plays its own)."""

    def wrap(self, measure: Measure) -> Measure:
        def measure_once(settings: RunSettings, free_runs: FreeRuns | None = None) -> XBenchView:
            key = replay_key(settings) if self.enabled and free_runs is None else None
            if key is None:
                return measure(settings, free_runs)
            if key not in self.views:
                replay = functools.partial(measure, settings, self.free_runs)
                self.views[key] = self._shared_or_replayed(key, replay)
            return self.views[key]

        measure_once.__wrapped__ = measure  # type: ignore[attr-defined]
        return measure_once

    def _shared_or_replayed(self, key: str, replay: Callable[[], XBenchView]) -> XBenchView:
        if self.shared is None:
            self.replays += 1
            return replay()
        view, made = stored_or_made(self.shared, f"x-bench-{key[:32]}", XBenchView, replay, KEEP)
        self.replays += made
        return view

    def install(self, shared: Path | None = None) -> Callable[[], None]:
        """Wrap :func:`experiments.x_bench.measure`; the function returned unwraps it."""
        original = x_bench.measure
        self.shared = shared
        x_bench.measure = self.wrap(original)

        def uninstall() -> None:
            x_bench.measure = original

        return uninstall


MEMO = BenchMemo()
"""The test process's memo (installed by the root ``conftest.py``)."""


def replayed_view(settings: RunSettings) -> XBenchView:
    """:func:`experiments.x_bench.measure` through the memo (installed or not)."""
    measure = x_bench.measure
    if not hasattr(measure, "__wrapped__"):
        measure = MEMO.wrap(measure)
    return measure(settings)


__all__ = [
    "KEEP",
    "MEMO",
    "PINS",
    "BenchMemo",
    "code_digest",
    "prune",
    "replay_key",
    "replayed_view",
]
