"""``python -m probes.one NAME FOLDER``: run one probe in this process (the runner starts one
process per probe, forked, and calls :func:`run_probe` in it). Exit 0: ctxlab held; 1: the
probe failed (the reason on stderr's last line)."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

from probes.catalogue import load
from probes.registry import Probe


def run_probe(found: Probe, folder: Path) -> int:
    """Run ``found`` on ``folder`` here: 0 when ctxlab held, 1 when the probe failed (its
    reason last on stderr)."""
    try:
        found.run(folder)
    except BaseException as exc:
        traceback.print_exc()
        print(f"FAILED: {type(exc).__name__}: {str(exc)[:400]}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str]) -> int:
    name, folder = argv[0], Path(argv[1])
    return run_probe(load()[name], folder)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
