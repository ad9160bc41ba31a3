"""``ctxlab run --cassette-match order`` and ``ctxlab mutations``: mutation testing of the claims
(:mod:`lab.mutations`), never a reproduction; every line they print says so."""

from __future__ import annotations

import argparse
import sys
import time

from harness import ConfigError
from lab.cli.options import folders, order_replay_out

__all__ = ["mutations", "run_in_order"]


def run_in_order(args: argparse.Namespace) -> int:
    """``ctxlab run --cassette-match order``: never into reports/, every line marked."""
    from lab.experiment import RunSettings
    from lab.recorder.order_replay import NOT_A_REPRODUCTION
    from lab.runner import run_experiments

    if args.check:
        raise ConfigError("--check judges a reproduction; --cassette-match order is none.")
    out = order_replay_out(args)
    args.out = out
    _, cassettes = folders(args)

    def say(line: str) -> None:
        print(f"[{NOT_A_REPRODUCTION}] {line}")

    say(f"writing to {out}")
    settings = RunSettings(cassette_root=cassettes, progress=say, cassette_match="order")
    summary = run_experiments(args.experiments, out, settings, force=args.force)
    say(summary.line())
    for line in summary.failure_lines():
        print(f"ctxlab: [{NOT_A_REPRODUCTION}] {line}", file=sys.stderr)
    return 2 if summary.failures else 0


def mutations(args: argparse.Namespace) -> int:
    """``ctxlab mutations``: the matrix of :mod:`lab.mutations.matrix`."""
    from lab.mutations import inputs
    from lab.mutations.matrix import compute_matrix, write_matrix
    from lab.mutations.reads import files_read
    from lab.project import SOURCE_ROOT
    from lab.recorder.order_replay import NOT_A_REPRODUCTION
    from lab.runner import select

    out, cassettes = folders(args)
    started = time.monotonic()

    def say(line: str) -> None:
        print(f"[{NOT_A_REPRODUCTION}] {line}", flush=True)

    files = None if args.experiments else inputs.input_hashes(SOURCE_ROOT, cassettes)
    before = None if files is None else inputs.digest_of(files)
    every = getattr(args, "every_experiment", False)
    reads: set[str] = set()
    matrix = compute_matrix(
        cassettes,
        experiments=args.experiments,
        jobs=args.jobs,
        progress=say,
        every_experiment=every,
        reads=reads,
    )
    path = write_matrix(matrix, out, only=select(args.experiments) if args.experiments else ())
    # a digest vouches for the whole matrix, computed from one unchanged tree; else none. The
    # files read: every run's, and this process's modules (it computed the cells from them)
    unchanged = before is not None and inputs.inputs_digest(SOURCE_ROOT, cassettes) == before
    read = inputs.read_names(reads | set(files_read()), SOURCE_ROOT, cassettes)
    inputs.write_inputs(
        out, before if unchanged else None, None if every else matrix.reach, files, read
    )
    if (out / "claims.csv").is_file():  # the page shows the matrix: build it again
        from lab.report import build_reports

        build_reports(out)
    rows = matrix.rows()
    unflipped = [r for r in rows if r["flipped_by"] == "0"]
    say(
        f"{len(matrix.mutations)} mutations × {len(rows)} claim rows (one per claim and model) "
        f"→ {path} ({len(unflipped)} rows no mutation flips; "
        f"{time.monotonic() - started:.0f} s)"
    )
    return 0
