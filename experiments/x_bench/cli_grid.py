"""How ``ctxlab bench`` plays its grid: ``--concurrency N`` runs at a time against one endpoint
(bounded by :mod:`lab.limiter`, lowered while the server refuses), ``--shard i/n``
(:mod:`experiments.x_bench.grid`) and ``--cache DIR`` (:mod:`lab.request_cache`).

Nothing here imports the harness at import time: ``ctxlab --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from experiments.x_bench.journal import RunJournal
    from experiments.x_bench.runs import GridOutcome, ModelFor
    from experiments.x_bench.schema import Conversation
    from harness.model import ChatModel
    from lab import Limiter, RequestCache

__all__ = ["Grid", "grid_options", "play"]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    return value


def grid_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--concurrency",
        type=_positive,
        default=1,
        metavar="N",
        help="runs in flight at once (each run's requests stay in order); the bound on the "
        "endpoint is lowered while it answers 429 or 503 and raised back after (default 1)",
    )
    parser.add_argument(
        "--shard",
        metavar="I/N",
        help="play only shard I of N of the grid (split by conversation, condition and model); "
        "combine the shards' --out folders with `ctxlab bench merge`",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        metavar="DIR",
        help="a request cache shards and reruns share (deletable at any time)",
    )
    parser.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="local: play here; ray: play --ray-tasks shards as Ray tasks (the ray extra; "
        "RAY_ADDRESS names a cluster) and merge them here",
    )
    parser.add_argument(
        "--ray-tasks",
        type=_positive,
        default=4,
        metavar="N",
        help="with --executor ray: the shards, one Ray task each",
    )


@dataclass
class Grid:
    """The grid's settings and what they need while it plays."""

    concurrency: int
    limiter: Limiter
    cache: RequestCache | None
    endpoint: str

    @classmethod
    def of(cls, args: argparse.Namespace, endpoint: str) -> Grid:
        from lab import Limiter, RequestCache

        cache = RequestCache(args.cache) if args.cache is not None else None
        return cls(args.concurrency, Limiter(args.concurrency), cache, endpoint)

    def model_for(self, model: ChatModel | None) -> ModelFor:
        """Each run's model: ``model`` behind the endpoint's limiter and the cache."""
        from lab import CachedModel, LimitedModel

        limited = LimitedModel(model, self.limiter) if model is not None else None

        def for_run(conversation: Conversation, condition: str) -> ChatModel | None:
            if limited is None or self.cache is None:
                return limited
            return CachedModel(limited, self.cache, self.endpoint)

        return for_run


def _say(line: str) -> None:
    sys.stderr.write(f"{line}\n")  # one write: lines of several runs never interleave
    sys.stderr.flush()


def play(
    args: argparse.Namespace,
    grid: Grid,
    conversations: Sequence[Conversation],
    names: Sequence[str],
    model: ChatModel | None,
    label: str,
    journal: RunJournal,
) -> GridOutcome:
    """The grid's runs (this shard's) played, kept ones read from ``journal``."""
    from experiments.x_bench.grid import in_shard, parse_shard
    from experiments.x_bench.progress import GridProgress
    from experiments.x_bench.runs import GridHooks, play_grid

    shard = parse_shard(args.shard) if args.shard else None
    counts = grid.limiter.counts
    progress = GridProgress(lambda: counts.requests, lambda: counts.refusals)
    hooks = GridHooks(
        progress=_say,
        cached=journal.cached,
        finished=journal.add,
        status=lambda *state: _say(progress.line(*state)),
        concurrency=grid.concurrency,
        select=(lambda cell: in_shard(cell, label, shard)) if shard else None,
    )
    outcome = play_grid(conversations, names, grid.model_for(model), label, hooks)
    if grid.cache is not None:
        _say(f"ctxlab: {grid.cache.line()}")
    if counts.refusals:
        _say(f"ctxlab: the server refused {counts.refusals} request(s) (429/503); each was "
             "waited out and sent again")  # fmt: skip
    return outcome
