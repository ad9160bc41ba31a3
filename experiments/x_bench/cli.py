"""``ctxlab bench`` and ``ctxlab bench merge``, the subcommand X-BENCH adds to ``ctxlab`` (its
manifest entry's ``commands``, :class:`lab.suite.Command`): lab's command line calls
:func:`add_options` and :func:`run` when the subcommand is asked for, and never imports this
module for ``ctxlab --help``. The bench itself: :mod:`experiments.x_bench.cli_bench`; the merge
of shards: :mod:`experiments.x_bench.cli_merge`; on Ray: :mod:`experiments.x_bench.cli_ray`."""

from __future__ import annotations

import argparse

__all__ = ["add_options", "run"]


def add_options(bench: argparse.ArgumentParser) -> None:
    """``ctxlab bench``'s options, and its ``merge`` subcommand."""
    from experiments.x_bench.cli_bench import bench_options
    from experiments.x_bench.cli_merge import merge_parser
    from lab import PROVIDERS, timeout_options

    bench_options(bench, PROVIDERS)
    timeout_options(bench)
    merge_parser(
        bench.add_subparsers(
            dest="bench_command",
            metavar="merge",
            help="merge DIR… --out D: the tables of the shards of one bench, as one bench's",
        )
    )


def run(args: argparse.Namespace) -> int:
    """``ctxlab bench`` (or ``ctxlab bench merge``) as ``args`` say; the exit status."""
    from experiments.x_bench import EXPERIMENT
    from experiments.x_bench.cli_bench import bench
    from lab import live_model, sigterm_as_interrupt

    if getattr(args, "bench_command", None) == "merge":
        from experiments.x_bench.cli_merge import merge

        return merge(args)
    sigterm_as_interrupt()  # ``--provider local`` starts a server
    if args.executor == "ray":
        from experiments.x_bench.cli_ray import bench_on_ray

        return bench_on_ray(args)
    context = EXPERIMENT.local_context  # the context X-BENCH is recorded with
    return bench(args, lambda options, hook: live_model(options, n_ctx=context, on_response=hook))
