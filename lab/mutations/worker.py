"""``python -m lab.mutations.worker --suite MODULE [--mutation NAME] [EXPERIMENT ...]``: one run
of the mutation matrix over the suite ``MODULE`` defines (:func:`lab.suite.from_module`), its
claims printed as JSON (:func:`lab.mutations.matrix.run_in_process`). Order replay: not a
reproduction.

``--trace`` (unmutated only) prints ``{"outcome": ..., "ran": [...]}``: the claims and every code
object the process ran (:func:`lab.mutations.reach.traced`). ``--reach`` runs nothing and prints,
for each mutation of the catalogue, the code objects its patch replaces, or null
(:func:`lab.mutations.reach.patched_code`). ``--reads PATH`` also writes to ``PATH`` the files
the process read (:mod:`lab.mutations.reads`) as a JSON list."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from contextlib import nullcontext
from pathlib import Path

from lab.mutations.reach import traced
from lab.mutations.reads import files_read, record_reads


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m lab.mutations.worker")
    parser.add_argument("--suite", required=True, help="the module that defines SUITE")
    parser.add_argument("--mutation", default="")
    parser.add_argument("--cassettes", type=Path, required=True)
    parser.add_argument("--trace", action="store_true", help="also print the code that ran")
    parser.add_argument("--reach", action="store_true", help="what each mutation replaces")
    parser.add_argument("--reads", type=Path, help="write the files the run read here")
    parser.add_argument("experiments", nargs="*")
    return parser


def _reach() -> dict[str, list[str] | None]:
    from lab.mutations.mutation import suite_catalogue
    from lab.mutations.reach import patched_code

    patches = {mutation.name: mutation.apply for mutation in suite_catalogue().mutations}
    return {
        name: None if codes is None else sorted(codes)
        for name, codes in patched_code(patches).items()
    }


def main() -> int:
    args = _parser().parse_args()
    if args.reads is not None:
        record_reads()
    try:
        return _main(args)
    finally:
        if args.reads is not None:
            args.reads.write_text(json.dumps(files_read()), encoding="utf-8")


def _main(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.CRITICAL)
    with traced() if args.trace else nullcontext(set[str]()) as ran:
        from lab.mutations.matrix import run_in_process
        from lab.suite import from_module, use

        use(from_module(args.suite))
        if args.reach:
            sys.stdout.write(json.dumps(_reach(), sort_keys=True))
            return 0
        outcome = run_in_process(args.mutation, args.cassettes, args.experiments)
    result: object = {"outcome": outcome, "ran": sorted(ran)} if args.trace else outcome
    sys.stdout.write(json.dumps(result, ensure_ascii=False, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
