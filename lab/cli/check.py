"""``ctxlab run --check``: the per-claim diff against the baseline, from a run into a folder
that is never the baseline's (a check only reads what it checks). Light to import."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from harness import ConfigError

if TYPE_CHECKING:
    from lab.runner import RunSummary

__all__ = ["check", "check_folder", "read_baseline"]


def read_baseline(args: argparse.Namespace) -> list[dict[str, str]]:
    from lab.baseline import read_baseline
    from lab.project import find_project

    if args.baseline is None:
        args.baseline = find_project(args.project) / "reports" / "claims.csv"
    return read_baseline(args.baseline)  # read before the run rewrites it


def check(args: argparse.Namespace, baseline: list[dict[str, str]], summary: RunSummary) -> int:
    from lab.baseline import baseline_changes, claim_row, diff_lines

    fresh = [claim_row(claim) for result in summary.results for claim in result.claims]
    ran = [result.experiment for result in summary.results]
    changes = baseline_changes(baseline, fresh, ran)
    print("\n".join(diff_lines(changes, args.baseline)))
    return 1 if changes else 0


def check_folder(args: argparse.Namespace, explicit_out: Path | None) -> Path:
    """Where ``run --check`` writes its reports: ``--out``, or a new temporary folder seeded
    with the project's claims table and measurements (so a partial run merges into the rows a
    plain run would); never the baseline's folder, which a check only reads."""
    import shutil
    import tempfile

    committed = Path(args.baseline).parent
    if explicit_out is not None:
        if explicit_out.resolve() == committed.resolve():
            raise ConfigError(
                f"--check never writes the baseline's folder {committed}; drop --out or name "
                "another folder (accepting a change is `ctxlab run` without --check)."
            )
        return explicit_out
    from lab.staging import mark

    out = Path(tempfile.mkdtemp(prefix="ctxlab-check-"))
    mark(out)
    reports = Path(args.out)
    for source in [reports / "claims.csv", *sorted(reports.glob("[EX]*.json"))]:
        if source.is_file():
            shutil.copyfile(source, out / source.name)
    return out
