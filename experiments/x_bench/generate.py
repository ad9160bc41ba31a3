"""``python -m experiments.x_bench.generate --seed S --size 2k|8k|24k --lang zh|en [--split
tune|heldout] [--shape tools|chat] [--out FILE]``: write one of X-BENCH's seeded conversations as
JSON (:mod:`experiments.x_bench.corpus`), byte for byte the same for the same arguments.

(A module of its own: the experiment's package imports the generator, so running the generator
module itself with ``-m`` would import it twice.)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from experiments.x_bench.corpus import LANGS, SHAPES, SIZES, SPLITS, generate
from experiments.x_bench.schema import dump_conversation
from harness.fs.files import write_atomic
from lab import ExperimentError

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.x_bench.generate",
        description="Write one X-BENCH conversation and its planted facts as JSON.",
    )
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--size", choices=list(SIZES), required=True)
    parser.add_argument("--lang", choices=list(LANGS), required=True)
    parser.add_argument("--split", choices=list(SPLITS), default="tune")
    parser.add_argument(
        "--shape", choices=list(SHAPES), default="tools", help="chat: no tool output (heldout)"
    )
    parser.add_argument("--out", type=Path, help="the JSON file (default: standard output)")
    args = parser.parse_args(argv)
    try:
        conversation = generate(args.seed, args.size, args.lang, args.split, args.shape)
        text = dump_conversation(conversation)
        if args.out is None:
            sys.stdout.write(text)
        else:
            write_atomic(args.out, text)
    except (ExperimentError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
