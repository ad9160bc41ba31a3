"""``python -m lab.mutations.worker --suite MODULE [--mutation NAME] [EXPERIMENT ...]``: one run
of the mutation matrix over the suite ``MODULE`` defines (:func:`lab.suite.from_module`), its
claims printed as JSON (:func:`lab.mutations.matrix.run_in_process`). Order replay: not a
reproduction."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from lab.mutations.matrix import run_in_process
from lab.suite import from_module, use


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m lab.mutations.worker")
    parser.add_argument("--suite", required=True, help="the module that defines SUITE")
    parser.add_argument("--mutation", default="")
    parser.add_argument("--cassettes", type=Path, required=True)
    parser.add_argument("experiments", nargs="*")
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    use(from_module(args.suite))
    outcome = run_in_process(args.mutation, args.cassettes, args.experiments)
    sys.stdout.write(json.dumps(outcome, ensure_ascii=False, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
