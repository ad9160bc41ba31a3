"""The mutation matrix: every claim judged under every mutation of the suite's catalogue
(:func:`~lab.mutations.mutation.suite_catalogue`).

Each run (the unmutated harness first, then one per mutation) is its own process started in its
own temporary folder (``python -m lab.mutations.worker``, handed the suite's module), so a patch
never leaks into another run and the runs can go side by side (``jobs``). Every experiment runs
with the recorded answers served in order (:mod:`lab.recorder.order_replay`): a mutated harness
asks for other things than the recording holds, and the ordinary replay would stop it at the first
request. An experiment that raises under a mutation is ``aborted``: its claims are not judged.

A cell of the matrix says what became of one claim (``<id>@<model>``) under one mutation:
``flip`` (its status changed), ``abort`` (its experiment raised), ``value`` (the reproduced value
changed but not the status) or empty (nothing changed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from harness import ConfigError
from lab.errors import ExperimentError
from lab.mutations.mutation import Catalogue, Mutation, suite_catalogue

__all__ = [
    "MATRIX_FILE",
    "Matrix",
    "Outcome",
    "compute_matrix",
    "run_in_process",
    "write_matrix",
]

MATRIX_FILE = "mutations.csv"
Outcome = dict[str, list[str]]
"""``{"<id>@<model>": [status, reproduced value, kind, experiment]}``, or
``{"!<experiment>": [why]}`` for an experiment that raised."""


def run_in_process(mutation: str, cassettes: Path, experiments: Sequence[str] = ()) -> Outcome:
    """Every experiment's claims in this process, under ``mutation`` ("" = none)."""
    from lab.experiment import RunSettings
    from lab.runner import run_one, select

    settings = RunSettings(
        cassette_root=cassettes, progress=lambda _line: None, cassette_match="order"
    )
    outcome: Outcome = {}
    patch = suite_catalogue().by_name(mutation).apply() if mutation else None
    if patch is not None:
        patch.__enter__()
    try:
        for experiment_id in select(experiments):
            try:
                result = run_one(experiment_id, settings)
            except Exception as exc:  # any failure of a mutated run is an abort
                outcome[f"!{experiment_id}"] = [f"{type(exc).__name__}: {exc}"[:300]]
                continue
            for claim in result.claims:
                outcome[f"{claim.claim_id}@{claim.model}"] = [
                    claim.status,
                    claim.reproduced_value,
                    claim.kind,
                    experiment_id,
                ]
    finally:
        if patch is not None:
            patch.__exit__(None, None, None)
    return outcome


def _run_in_subprocess(mutation: str, cassettes: Path, experiments: Sequence[str]) -> Outcome:
    from lab.suite import current

    with tempfile.TemporaryDirectory(prefix="ctxlab-mutation-") as scratch:
        command = [
            sys.executable,
            "-m",
            "lab.mutations.worker",
            "--suite",
            current().home,
            "--cassettes",
            str(cassettes.resolve()),
            *(["--mutation", mutation] if mutation else []),
            *experiments,
        ]
        env = {**os.environ, "TMPDIR": scratch, "PYTHONHASHSEED": "0"}
        done = subprocess.run(
            command, cwd=scratch, env=env, capture_output=True, text=True, check=False
        )
    if done.returncode != 0:
        raise ExperimentError(
            f"the mutation run {mutation or '(none)'} failed: {done.stderr.strip()[-500:]}"
        )
    outcome: Outcome = json.loads(done.stdout)
    return outcome


@dataclass(frozen=True)
class Matrix:
    """The unmutated run's claims and each mutation's outcome."""

    baseline: Outcome
    outcomes: dict[str, Outcome]
    mutations: tuple[Mutation, ...]
    catalogue: Catalogue | None = None
    """Where the guards come from (None: the current suite's catalogue)."""

    def claims(self) -> list[str]:
        return [key for key in self.baseline if not key.startswith("!")]

    def cell(self, mutation: str, claim: str) -> str:
        outcome = self.outcomes[mutation]
        experiment = self.baseline[claim][3]
        if f"!{experiment}" in outcome or claim not in outcome:
            return "abort"
        before, after = self.baseline[claim], outcome[claim]
        if before[0] != after[0]:
            return "flip"
        return "value" if before[1] != after[1] else ""

    def flipped(self, mutation: str) -> list[str]:
        """The claims whose status ``mutation`` changed (aborts not counted)."""
        return [c for c in self.claims() if self.cell(mutation, c) == "flip"]

    def caught_by(self, claim: str) -> list[str]:
        return [m.name for m in self.mutations if self.cell(m.name, claim) == "flip"]

    def rows(self) -> list[dict[str, str]]:
        """One row per claim: id, model, kind, status, then one column per mutation, then how
        many mutations flip it and, for a claim none flips, why it is a guard."""
        catalogue = self.catalogue or suite_catalogue()
        rows = []
        for claim in self.claims():
            claim_id, _, model = claim.partition("@")
            status, _value, kind, experiment = self.baseline[claim]
            row = {"experiment": experiment, "claim_id": claim_id, "model": model}
            row |= {"kind": kind, "status": status}
            row |= {m.name: self.cell(m.name, claim) for m in self.mutations}
            caught = self.caught_by(claim)
            row["flipped_by"] = str(len(caught))
            row["guard"] = "" if caught else catalogue.guard_reason(claim_id, status)
            row["uncovered"] = "" if caught or row["guard"] else catalogue.uncovered_reason(claim)
            rows.append(row)
        return rows


def compute_matrix(
    cassettes: Path,
    *,
    mutations: Sequence[Mutation] | None = None,
    experiments: Sequence[str] = (),
    jobs: int = 2,
    progress: Callable[[str], None] = lambda _line: None,
) -> Matrix:
    """Run the unmutated harness and every mutation (default: the suite's catalogue), ``jobs``
    processes at a time."""
    catalogue = suite_catalogue()
    chosen = catalogue.mutations if mutations is None else tuple(mutations)
    names = ["", *(m.name for m in chosen)]

    def one(name: str) -> Outcome:
        outcome = _run_in_subprocess(name, cassettes, experiments)
        progress(f"mutation {name or '(none)'}: done")
        return outcome

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = dict(zip(names, pool.map(one, names), strict=True))
    baseline = results.pop("")
    return Matrix(baseline, results, chosen, catalogue)


def write_matrix(matrix: Matrix, out_dir: Path, only: Sequence[str] = ()) -> Path:
    """``out_dir/mutations.csv``, written atomically. With ``only`` (the experiments the matrix
    was computed for), the rows of the other experiments already in the file are kept, in
    their place: a matrix of one experiment never drops the rest of the table."""
    import csv
    import io

    from harness.fs.files import write_atomic

    rows = matrix.rows()
    columns = ["experiment", "claim_id", "model", "kind", "status"]
    columns += [m.name for m in matrix.mutations]
    columns += ["flipped_by", "guard", "uncovered"]
    path = Path(out_dir) / MATRIX_FILE
    if only and path.is_file():
        rows = merged_rows(_read_rows(path, columns), rows, only)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, buffer.getvalue())
    return path


def _read_rows(path: Path, columns: list[str]) -> list[dict[str, str]]:
    """The rows of an existing matrix file, which must have ``columns`` (the same catalogue)."""
    import csv

    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != columns:
            raise ConfigError(
                f"{path} was computed with another mutation catalogue; run `ctxlab mutations` "
                "for every experiment to write it again."
            )
        return list(reader)


def merged_rows(
    existing: list[dict[str, str]], fresh: list[dict[str, str]], only: Sequence[str]
) -> list[dict[str, str]]:
    """``existing`` with the rows of the experiments ``only`` replaced by ``fresh``'s, where
    the first of them stood (at the end when none did)."""
    kept, placed = [], False
    for row in existing:
        if row["experiment"] not in only:
            kept.append(row)
        elif not placed:
            kept += fresh
            placed = True
    return kept if placed else kept + fresh
