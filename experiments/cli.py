"""The ``ctxlab`` command line."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from harness.errors import CtxlabError

__all__ = ["main"]

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctxlab",
        description="Reproduce the context-management experiments and write the reports.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="replay experiments offline and write reports/")
    run.add_argument("experiments", nargs="*", help="experiment ids (default: all)")
    run.add_argument("--out", type=Path, default=PROJECT_ROOT / "reports", help="output folder")
    run.add_argument(
        "--cassettes", type=Path, default=PROJECT_ROOT / "cassettes", help="cassette folder"
    )
    run.add_argument("-v", "--verbose", action="store_true", help="show harness log lines")
    return parser


def _run(args: argparse.Namespace) -> int:
    from experiments.runner import run_experiments

    summary = run_experiments(args.experiments, args.out, args.cassettes)
    print(summary.line())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ctxlab`` console script; returns the exit status."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        return _run(args)
    except CtxlabError as exc:
        print(f"ctxlab: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
