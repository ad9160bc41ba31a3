"""``ctxlab bench merge DIR… --out D``: the shards' tables as one bench's
(:mod:`experiments.x_bench.shards`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

__all__ = ["merge", "merge_parser"]


def merge_parser(subcommands: Any) -> None:
    merge = subcommands.add_parser(
        "merge",
        help="combine the --out folders of `ctxlab bench --shard i/n` into one bench's tables",
        description="Combine the --out folders of the shards of one bench (every shard, once "
        "or more) into one bench's tables, byte for byte what one unsharded bench writes.",
    )
    merge.add_argument("folders", type=Path, nargs="+", metavar="DIR", help="a shard's --out")
    merge.add_argument("--out", type=Path, required=True, help="where the merged tables go")


def merge(args: argparse.Namespace) -> int:
    from experiments.x_bench.cli_bench import write_report
    from experiments.x_bench.shards import merge_shards, write_shard

    conversations, names, records, manifest = merge_shards(args.folders)
    write_report(conversations, records, names, args.out)
    write_shard(args.out, manifest, conversations, records)
    return 0
