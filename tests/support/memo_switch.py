"""The switch the test memos share (``bench_memo``, ``plot_memo``, ``report_memo``): on by
default, off inside :meth:`MemoSwitch.fresh`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class MemoSwitch:
    """``enabled`` unless inside :meth:`fresh`."""

    enabled: bool = True

    @contextmanager
    def fresh(self) -> Iterator[None]:
        """Everything inside is made again, whatever was made before."""
        self.enabled = False
        try:
            yield
        finally:
            self.enabled = True
