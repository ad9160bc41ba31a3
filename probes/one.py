"""``python -m probes.one NAME FOLDER``: run one probe in this process (the runner starts one
process per probe). Exit 0: ctxlab held; 1: the probe failed (the reason on stderr's last line)."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

from probes.catalogue import load


def main(argv: list[str]) -> int:
    name, folder = argv[0], Path(argv[1])
    found = load()[name]
    try:
        found.run(folder)
    except BaseException as exc:
        traceback.print_exc()
        print(f"FAILED: {type(exc).__name__}: {str(exc)[:400]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
