"""The ``ctxlab`` command (pyproject.toml's entry point): lab's command line, handed this suite."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from experiments.manifest import SUITE

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ctxlab`` console script; returns the exit status."""
    from lab.cli import main as lab_main

    return lab_main(argv, suite=SUITE)


if __name__ == "__main__":
    sys.exit(main())
