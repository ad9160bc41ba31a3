"""Each plot drawn once per test process: the report tests build the report of the same views
again and again (the committed reports/, a copy with one JSON edited, ``ctxlab run`` in
process), and drawing the plots is most of a build (about 10 of its 12 CPU seconds). The
plots of the experiments' pages (:func:`lab.report.experiments.experiment_pages`) are
wrapped so that a renderer given a view it has drawn before in this process returns that
:class:`Plot` (frozen) again.

The key is the pickled view, so a view that differs in any field is drawn afresh; a view that
cannot be pickled is always drawn. A test that compares two builds' bytes (is drawing
deterministic?) makes its second build inside :meth:`PlotMemo.fresh`, so it compares two
separate drawings of each plot.

With a folder (the root ``conftest.py`` gives pytest's cache folder,
``.pytest_cache/d/ctxlab-plots``), each drawing is also stored there, keyed on the renderer,
the pickled view and the code's digest (:func:`support.bench_memo.code_digest`: ``harness/``,
``lab/``, ``experiments/`` and every installed distribution), so a later process (the other
xdist worker, the next session) of the same code reads it instead of drawing it again; the
:data:`KEEP` drawings read or written last are kept."""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.fs.files import write_atomic
from lab.report.experiments import experiment_pages
from lab.report.plots import Plot
from support.memo_switch import MemoSwitch

Render = Callable[[Any], Plot]
KEEP = 64
"""How many stored drawings a folder keeps (the ones read or written last)."""


def prune(folder: Path, keep: int) -> None:
    """Remove the stored drawings of ``folder`` but the ``keep`` read or written last."""
    stored = sorted(folder.glob("plot-*.pickle"), key=lambda p: p.stat().st_mtime_ns)
    for old in stored[: max(len(stored) - keep, 0)]:
        old.unlink(missing_ok=True)
        old.with_suffix(".lock").unlink(missing_ok=True)


class PlotMemo(MemoSwitch):
    """The memo of every experiment page's plot."""

    def __init__(self) -> None:
        self.drawn: dict[tuple[str, bytes], Plot] = {}
        self.hits = 0
        self.stored: Path | None = None
        """The folder drawings are stored in, shared with other processes (None: none)."""
        self.draws = 0
        """Drawings this process made (for the memo's own tests)."""

    def wrap(self, render: Render) -> Render:
        def render_once(view: Any) -> Plot:
            try:
                key = (render.__qualname__, hashlib.sha256(pickle.dumps(view)).digest())
            except (pickle.PicklingError, TypeError, AttributeError):
                return render(view)
            if not self.enabled:
                return render(view)
            if key in self.drawn:
                self.hits += 1
            else:
                self.drawn[key] = self._stored_or_drawn(key, lambda: render(view))
            return self.drawn[key]

        render_once.__wrapped__ = render  # type: ignore[attr-defined]
        return render_once

    def _stored_or_drawn(self, key: tuple[str, bytes], draw: Callable[[], Plot]) -> Plot:
        if self.stored is None:
            self.draws += 1
            return draw()
        from support.bench_memo import code_digest

        name = hashlib.sha256(key[0].encode() + key[1] + code_digest().encode()).hexdigest()
        self.stored.mkdir(parents=True, exist_ok=True)
        path = self.stored / f"plot-{name[:32]}.pickle"
        with open(path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one process draws it, the others wait and read
            if path.is_file():
                os.utime(path)  # read last: kept by the pruning below
                plot: Plot = pickle.loads(path.read_bytes())
                return plot
            self.draws += 1
            plot = draw()
            write_atomic(path, pickle.dumps(plot))
        prune(self.stored, KEEP)
        return plot
        self.draws += 1
        plot = draw()  # outside the lock: the other worker's plots need not wait for this one
        write_atomic(path, pickle.dumps(plot))
        prune(self.stored, KEEP)
        return plot

    def install(self, stored: Path | None = None) -> Callable[[], None]:
        """Wrap the renderers (storing the drawings in ``stored``, when given); the function
        returned unwraps them."""
        self.stored = stored
        pages = experiment_pages()  # the one cached dict the report reads
        original = dict(pages)
        for key, page in original.items():
            if page.plot is not None:
                pages[key] = dataclasses.replace(page, plot=self.wrap(page.plot))

        def uninstall() -> None:
            pages.update(original)

        return uninstall


MEMO = PlotMemo()
"""The test process's memo (installed by the root ``conftest.py``)."""
