"""The mutation matrix: every claim judged under every mutation of the suite's catalogue
(:func:`~lab.mutations.mutation.suite_catalogue`).

Each run (the unmutated harness first, then one per mutation) is its own process started in its
own temporary folder (``python -m lab.mutations.worker``, handed the suite's module), so a patch
never leaks into another run and the runs can go side by side (``jobs``). Every experiment runs
with the recorded answers served in order (:mod:`lab.recorder.order_replay`): a mutated harness
asks for other things than the recording holds, and the ordinary replay would stop it at the first
request. An experiment that raises under a mutation is ``aborted``: its claims are not judged.
A mutation replays only the experiments it can reach (:mod:`lab.mutations.reach`: most never
run X-BENCH's code, and X-BENCH is most of a replay); the others keep their unmutated claims.

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
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import ConfigError
from lab.errors import ExperimentError
from lab.mutations.mutation import Catalogue, Mutation, suite_catalogue
from lab.mutations.reach import reaches

__all__ = [
    "MATRIX_FILE",
    "Matrix",
    "Outcome",
    "compute_matrix",
    "run_in_process",
    "write_matrix",
]

MATRIX_FILE = "mutations.csv"
_READS_LOCK = threading.Lock()
Outcome = dict[str, list[str]]
Reach = dict[str, list[str]]
"""Mutation name → the experiments it can reach, in run order (:mod:`lab.mutations.reach`)."""
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


def _worker(flags: Sequence[str], cassettes: Path, what: str, reads: set[str] | None) -> Any:
    """The JSON a worker process (:mod:`lab.mutations.worker`) prints, run with ``flags``;
    the files it read added to ``reads`` (:mod:`lab.mutations.reads`) unless that is None."""
    from lab.suite import current

    with tempfile.TemporaryDirectory(prefix="ctxlab-mutation-") as scratch:
        command = [sys.executable, "-m", "lab.mutations.worker", "--suite", current().home]
        command += ["--cassettes", str(cassettes.resolve()), *flags]
        log = Path(scratch) / "reads.json"
        command += [] if reads is None else ["--reads", str(log)]
        env = {**os.environ, "TMPDIR": scratch, "PYTHONHASHSEED": "0"}
        done = subprocess.run(
            command, cwd=scratch, env=env, capture_output=True, text=True, check=False
        )
        if done.returncode == 0 and reads is not None:
            read = json.loads(log.read_text(encoding="utf-8"))
            with _READS_LOCK:  # the pool's threads share the set
                reads.update(read)
    if done.returncode != 0:
        raise ExperimentError(f"the mutation run {what} failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def _run_in_subprocess(
    mutation: str, cassettes: Path, experiments: Sequence[str], reads: set[str] | None = None
) -> Outcome:
    flags = [*(["--mutation", mutation] if mutation else []), *experiments]
    outcome: Outcome = _worker(flags, cassettes, mutation or "(none)", reads)
    return outcome


@dataclass(frozen=True)
class Matrix:
    """The unmutated run's claims and each mutation's outcome."""

    baseline: Outcome
    outcomes: dict[str, Outcome]
    mutations: tuple[Mutation, ...]
    catalogue: Catalogue | None = None
    """Where the guards come from (None: the current suite's catalogue)."""
    reach: Reach | None = None
    """The experiments each mutation was run over (the others cannot move)."""

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
    reach: Reach | None = None,
    every_experiment: bool = False,
    reads: set[str] | None = None,
) -> Matrix:
    """Run the unmutated harness and every mutation (default: the suite's catalogue), ``jobs``
    processes at a time, each mutation over the experiments it can reach (the others keep the
    unmutated claims): ``reach`` when given (recorded for this very tree), else derived from
    traced unmutated runs (:mod:`lab.mutations.reach`); ``every_experiment`` runs each
    mutation over every experiment instead, the check of that derivation. Every file any of
    the runs read is added to ``reads`` unless that is None (:mod:`lab.mutations.reads`)."""
    from lab.runner import select

    catalogue = suite_catalogue()
    chosen = catalogue.mutations if mutations is None else tuple(mutations)
    order = select(experiments)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        if every_experiment or reach is not None:
            baseline = _run_in_subprocess("", cassettes, order, reads)
            reach = {m.name: order for m in chosen} if every_experiment else reach
        else:
            baseline, reach = _traced(pool, cassettes, order, reads)
        progress("mutation (none): done")
        known: Reach = {m.name: [e for e in order if e in (reach or {}).get(m.name, order)]
                        for m in chosen}  # fmt: skip

        def one(mutation: Mutation) -> Outcome:
            within = known[mutation.name]
            outcome = _claims_outside(baseline, within)
            if within:
                outcome |= _run_in_subprocess(mutation.name, cassettes, within, reads)
            progress(f"mutation {mutation.name} ({len(within)} experiments): done")
            return outcome

        results = dict(zip([m.name for m in chosen], pool.map(one, chosen), strict=True))
    return Matrix(baseline, results, chosen, catalogue, known)


def _traced(
    pool: ThreadPoolExecutor, cassettes: Path, order: list[str], reads: set[str] | None
) -> tuple[Outcome, Reach]:
    """The unmutated claims, each experiment alone in a traced process, and what each mutation
    of the catalogue can reach (:mod:`lab.mutations.reach`)."""
    patched = pool.submit(_worker, ["--reach"], cassettes, "--reach", reads)
    runs: list[dict[str, Any]] = list(
        pool.map(lambda e: _worker(["--trace", e], cassettes, f"(none) of {e}", reads), order)
    )
    baseline: Outcome = dict(sorted(kv for run in runs for kv in run["outcome"].items()))
    ran = {e: run["ran"] for e, run in zip(order, runs, strict=True)}
    codes: dict[str, list[str] | None] = patched.result()
    reach = {name: reaches(None if c is None else set(c), ran, order) for name, c in codes.items()}
    return baseline, reach


def _claims_outside(baseline: Outcome, within: Sequence[str]) -> Outcome:
    """The unmutated claims (and aborts) of the experiments not in ``within``."""
    return {
        key: value
        for key, value in baseline.items()
        if (key[1:] if key.startswith("!") else value[3]) not in within
    }


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
