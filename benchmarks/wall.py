"""Start-up and run wall times, side by side with ``python -c pass`` (median of interleaved
runs). Absolute times are reported, never gated in CI: the lazy-import guarantee is a test
(``tests/lab/test_cli_imports.py``)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.common import Row, timed

__all__ = ["rows"]

CTXLAB = [
    sys.executable,
    "-c",
    "import sys; from experiments.cli import main; sys.exit(main())",
]


def _run(command: list[str]) -> None:
    subprocess.run(command, check=True, capture_output=True, timeout=600)


def rows(quick: bool, root: Path) -> list[Row]:
    bare = [sys.executable, "-c", "pass"]
    help_ = [*CTXLAB, "--help"]
    pairs = [(timed(lambda: _run(bare)), timed(lambda: _run(help_))) for _ in range(7)]
    python = statistics.median(p for p, _ in pairs)
    startup = statistics.median(h for _, h in pairs)
    with tempfile.TemporaryDirectory() as tmp:
        run = [*CTXLAB, "run", *(["E1"] if quick else []), "--out", tmp]
        run += ["--cassettes", str(root / "cassettes")]
        whole = timed(lambda: _run(run))
    label = "ctxlab run E1" if quick else "ctxlab run"
    return [
        Row("wall time", "python -c pass", python, "s"),
        Row("wall time", "ctxlab --help", startup, "s"),
        Row(
            "wall time",
            "ctxlab --help − python -c pass",
            startup - python,
            "s",
            gate=0.3,
            enforced=False,
            note="absolute time: reported, not enforced in CI",
        ),
        Row("wall time", label, whole, "s"),
        Row("wall time", f"{label} / python -c pass", whole / python),
    ]
