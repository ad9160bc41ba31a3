"""A scripted experiment's view measured once for its code, shared by the test processes.

E5 is scripted (no cassette: its ``measure()`` takes nothing) and several tests run it whole:
the claims table (the pytest plugin's ``run_one``), tests/experiments/test_report_e5.py's
inputs, tests/experiments/test_experiments_replay.py and ``ctxlab run E1 E5`` in
tests/lab/test_run_project.py: about 2.5 s of CPU each time, from the same code.
:data:`MEMOS` wrap each such experiment's ``measure`` (installed by the root ``conftest.py``)
so that a measuring made before, by this process, the other xdist worker or an earlier session of
the same code, returns that view (:mod:`support.stored_views`).

The key is the experiment's module name and :func:`support.bench_memo.code_digest` (every file
of ``harness/``, ``lab/`` and ``experiments/``, the pins, the Python, the installed versions):
a scripted experiment reads nothing else. Only the process that installed the memo is served
(a forked worker measures on its own), and inside :meth:`ScriptedMemo.fresh` every call
measures. The tests of the measuring itself call the function unwrapped
(``inspect.unwrap(e5.measure)``): tests/experiments/test_views.py.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from support.bench_memo import code_digest
from support.memo_switch import MemoSwitch
from support.stored_views import stored_or_made

KEEP = 4
"""How many stored views of each experiment a shared folder keeps (the ones used last)."""

Measure = Callable[[], Any]


class ScriptedMemo(MemoSwitch):
    """The views of one scripted experiment (``module.measure()``), by :meth:`key`."""

    def __init__(self, module: ModuleType, view_type: type) -> None:
        self.module = module
        self.view_type = view_type
        self.prefix = module.__name__.rsplit(".", 1)[-1].replace("_", "-")
        self.views: dict[str, Any] = {}
        self.shared: Path | None = None
        """The folder the stored views are in (None: this process only)."""
        self.owner = os.getpid()
        self.measured = 0
        """Measurings this process made through the memo (for the memo's own tests)."""

    def key(self) -> str:
        return hashlib.sha256(f"{self.module.__name__}\0{code_digest()}".encode()).hexdigest()

    def wrap(self, measure: Measure) -> Measure:
        def measure_once() -> Any:
            if not self.enabled or os.getpid() != self.owner:
                return measure()
            key = self.key()
            if key not in self.views:
                self.views[key] = self._shared_or_measured(key, measure)
            return self.views[key]

        measure_once.__wrapped__ = measure  # type: ignore[attr-defined]
        return measure_once

    def _shared_or_measured(self, key: str, measure: Measure) -> Any:
        if self.shared is None:
            self.measured += 1
            return measure()
        name = f"{self.prefix}-{key[:32]}"
        view, made = stored_or_made(self.shared, name, self.view_type, measure, KEEP)
        self.measured += made
        return view

    def install(self, shared: Path | None = None) -> Callable[[], None]:
        """Wrap ``module.measure``; the function returned unwraps it."""
        original = self.module.measure
        self.shared, self.owner = shared, os.getpid()
        self.module.measure = self.wrap(original)

        def uninstall() -> None:
            self.module.measure = original

        return uninstall


def _memos() -> tuple[ScriptedMemo, ...]:
    from experiments import e5
    from experiments.e5.view import E5View

    return (ScriptedMemo(e5, E5View),)


MEMOS = _memos()
"""The test process's memos (installed by the root ``conftest.py``)."""

__all__ = ["KEEP", "MEMOS", "ScriptedMemo"]
