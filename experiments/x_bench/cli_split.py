"""``ctxlab bench --split tune|heldout --shapes tools,chat``: which of X-BENCH's generated splits
a bench plays (:func:`experiments.x_bench.corpus.generate`). The held-out split is reached only
through the corpus's dispatch, so this module names no held-out phrasing.

Nothing here imports the harness at import time: ``ctxlab --help`` stays fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from experiments.x_bench.schema import Conversation

__all__ = ["generated", "split_options"]


def split_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--split",
        choices=("tune", "heldout"),
        help="tune: the corpus ctxlab's profile was written against (default); heldout: "
        "phrasing written apart from it (docs/bench.md, Splits)",
    )
    parser.add_argument(
        "--shapes",
        help="comma-separated: tools, chat (default: every shape of the split; tune has tools "
        "only)",
    )


def generated(
    args: argparse.Namespace,
    sizes: Sequence[str],
    seeds: Sequence[int],
    langs: Sequence[str],
    choices: Callable[[str, Sequence[str], str], list[str]],
) -> list[Conversation]:
    """The generated conversations the options ask for, size by size, seed by seed, then
    language and shape; ``choices`` is the caller's checker of a comma-separated option."""
    from experiments.x_bench.corpus import generate, split_shapes

    split = args.split or "tune"
    known = list(split_shapes(split))
    shapes = choices(args.shapes or ",".join(known), known, "--shapes")
    return [
        generate(seed, size, lang, split, shape)
        for size in sizes
        for seed in seeds
        for lang in langs
        for shape in shapes
    ]
