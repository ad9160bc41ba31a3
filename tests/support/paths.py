"""Where the tests find the checkout, whatever folder a test module sits in."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["CTXLAB", "ROOT", "TESTS"]

TESTS = Path(__file__).resolve().parents[1]
"""The ``tests/`` folder."""
ROOT = TESTS.parent
"""The checkout."""

_SCRIPT = Path(sys.executable).with_name("ctxlab")
CTXLAB = (
    [str(_SCRIPT)]
    if _SCRIPT.is_file()
    else [
        sys.executable,
        "-c",
        "import sys; from experiments.cli import main; sys.exit(main())",
    ]
)
"""The ``ctxlab`` command of the interpreter running the tests: the console script beside it
(what a user calls), so a test needs no activated venv on ``PATH``."""
