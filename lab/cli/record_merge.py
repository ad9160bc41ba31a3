"""``ctxlab record merge DIR… --out D``: the ``--cassettes`` folders of the shards of one
recording (``ctxlab record --shard i/n``) as one folder of cassettes
(:mod:`lab.record_shards`)."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["MERGE", "merge", "merge_parser"]

MERGE = ("record", "merge")
"""The command line's first two words that choose this command."""


def merge_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctxlab record merge",
        description="Combine the --cassettes folders of the shards of one recording (`ctxlab "
        "record … --shard i/n`, every shard once or more) into one folder of cassettes, the "
        "same as one unsharded recording's; shards of another recording are refused.",
    )
    parser.add_argument(
        "folders", type=Path, nargs="+", metavar="DIR", help="a shard's --cassettes folder"
    )
    parser.add_argument(
        "--out",
        type=Path,
        required=True,
        help="where the cassettes go (with the merged record-shard.json)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show harness log lines")
    return parser


def merge(args: argparse.Namespace) -> int:
    from lab.record_shards import merge_shards

    merged = merge_shards(args.folders, args.out)
    print(
        f"merged {len(args.folders)} folder(s): {len(merged.cassettes)} cassette(s) of "
        f"{', '.join(merged.experiments)} ({merged.provider}, {merged.model}) → {args.out}"
    )
    return 0
