"""A script of ``scripts/`` run as ``__main__`` in the test's process (no second start-up)."""

from __future__ import annotations

import contextlib
import io
import runpy
import sys
from pathlib import Path


def run_in_process(script: Path, *args: str) -> str:
    """``script``'s stdout, run with ``args`` as its command line."""
    argv, out = sys.argv, io.StringIO()
    sys.argv = [str(script), *args]
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(script), run_name="__main__")
    finally:
        sys.argv = argv
    return out.getvalue()
