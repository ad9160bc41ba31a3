"""Each plot drawn once per test process: the report tests build the report of the same views
again and again (the committed reports/, a copy with one JSON edited, ``ctxlab run`` in
process), and drawing the plots is most of a build (about 10 of its 12 CPU seconds). The
plots of the experiments' pages (:func:`lab.report.experiments.experiment_pages`) are
wrapped so that a renderer given a view it has drawn before in this process returns that
:class:`Plot` (frozen) again.

The key is the pickled view, so a view that differs in any field is drawn afresh; a view that
cannot be pickled is always drawn. A test that compares two builds' bytes (is drawing
deterministic?) makes its second build inside :meth:`PlotMemo.fresh`, so it compares two
separate drawings of each plot."""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from lab.report.experiments import experiment_pages
from lab.report.plots import Plot

Render = Callable[[Any], Plot]


class PlotMemo:
    """The memo of every experiment page's plot."""

    def __init__(self) -> None:
        self.enabled = True
        self.drawn: dict[tuple[str, bytes], Plot] = {}
        self.hits = 0

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
                self.drawn[key] = render(view)
            return self.drawn[key]

        render_once.__wrapped__ = render  # type: ignore[attr-defined]
        return render_once

    @contextmanager
    def fresh(self) -> Iterator[None]:
        """Every plot drawn inside is drawn again, whatever was drawn before."""
        self.enabled = False
        try:
            yield
        finally:
            self.enabled = True

    def install(self) -> Callable[[], None]:
        """Wrap the renderers; the function returned unwraps them."""
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
