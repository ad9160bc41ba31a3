"""Every claim can fail: the mutation catalogue, run as ``pytest -m mutations``.

The matrix (:mod:`lab.mutations.matrix`) judges every claim under every mutation of the
harness, each run in its own process and temporary folder, the recorded answers replayed in
order. A mutation fails its test when a claim it names does not flip, or when it flips nothing;
a row no mutation flips (a seed row or one of ctxlab's own) must be a listed guard; and the
committed ``reports/mutations.csv`` must be what the code produces. The matrix takes minutes, so
these tests run only when ``-m mutations`` selects them; the quick checks of the catalogue at the
end run always.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.paths import ROOT

from experiments.mutations.catalogue import CATALOGUE, MUTATIONS, Mutation, by_name
from experiments.mutations.guards import GUARDS, UNCOVERED
from harness.errors import ConfigError
from lab.mutations.committed import committed_matrix
from lab.mutations.inputs import (
    matrix_is_current,
    read_names,
    recorded_reach,
    recorded_read,
    sample_of,
)
from lab.mutations.matrix import (
    MATRIX_FILE,
    Matrix,
    compute_matrix,
    merged_rows,
    write_matrix,
)
from lab.project import SOURCE_ROOT
from lab.report.mutations import mutations_page

PROJECT_ROOT = ROOT
REPORTS = PROJECT_ROOT / "reports"
SEED_KINDS = ("article", "article-computed")


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


SAMPLE = int(os.environ.get("CTXLAB_MUTATION_SAMPLE", "4"))
"""Mutations computed again when the committed matrix's recorded inputs are this tree's."""


@dataclass(frozen=True)
class Checked:
    """The matrix the catalogue's tests read, and the runs that computed its columns now."""

    matrix: Matrix
    fresh: Matrix
    """The unmutated run and the mutations computed in this session."""
    reads: frozenset[str] | None = None
    """The files the runs of this session read, when the committed matrix was kept."""


@pytest.fixture(scope="module")
def checked(request: pytest.FixtureRequest) -> Checked:
    """The whole matrix computed again, or, when ``reports/mutations.inputs.json`` records
    this very tree, or one that differs only in files none of the matrix's runs read
    (:func:`lab.mutations.inputs.matrix_is_current`), and CTXLAB_MUTATIONS is not ``full``, the
    committed matrix with the unmutated run and a sample of the day's mutations computed
    again (their cells must be the committed ones). Either way each mutation replays only
    the experiments it can reach (:mod:`lab.mutations.reach`)."""
    if "mutations" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("the mutation matrix takes minutes: run it with `pytest -m mutations`")
    jobs = int(os.environ.get("CTXLAB_MUTATION_JOBS", "2"))
    cassettes = PROJECT_ROOT / "cassettes"
    # current: this very tree's, or one where only files none of its runs read changed
    current = matrix_is_current(REPORTS, SOURCE_ROOT, cassettes)
    if os.environ.get("CTXLAB_MUTATIONS") == "full" or not current:
        full = compute_matrix(cassettes, jobs=jobs)
        return Checked(full, full)
    sample = sample_of([m.name for m in MUTATIONS], SAMPLE)
    # the reach recorded with this very tree's matrix: each sampled mutation replays only the
    # experiments it can reach; without one, every experiment (tracing would cost more)
    reach = recorded_reach(REPORTS)
    chosen = [by_name(n) for n in sample]
    reads: set[str] = set()
    fresh = compute_matrix(
        cassettes,
        mutations=chosen,
        jobs=jobs,
        reach=reach,
        every_experiment=reach is None,
        reads=reads,
    )
    return Checked(committed_matrix(REPORTS, MUTATIONS, fresh.baseline), fresh, frozenset(reads))


@pytest.fixture(scope="module")
def matrix(checked: Checked) -> Matrix:
    return checked.matrix


def _named(mutation: Mutation, matrix: Matrix) -> list[str]:
    """The matrix's claims a mutation names (``ID`` = every model's row of it)."""
    claims = matrix.claims()
    named = []
    for name in mutation.must_flip:
        found = [c for c in claims if c == name or c.partition("@")[0] == name]
        assert found, f"{mutation.name} names {name}, which no run produced"
        named += found
    return named


def _cases() -> list[object]:
    return [
        pytest.param(m, marks=pytest.mark.xfail(strict=True, reason=m.gap)) if m.gap else m
        for m in MUTATIONS
    ]


@pytest.mark.mutations
@pytest.mark.parametrize("mutation", _cases(), ids=lambda m: m.name)
def test_a_mutation_flips_the_claims_it_names(mutation: Mutation, matrix: Matrix) -> None:
    flipped = matrix.flipped(mutation.name)
    missed = [c for c in _named(mutation, matrix) if c not in flipped]
    assert not missed, f"{mutation.name} ({mutation.what}) did not flip {', '.join(missed)}"
    assert flipped, f"{mutation.name} ({mutation.what}) flips no claim at all"


@pytest.mark.mutations
def test_every_row_is_flipped_or_a_named_guard(matrix: Matrix) -> None:
    # seed rows and ctxlab's own alike: a check of ours that cannot fail is as much a defect
    rows = [r for r in matrix.rows() if r["kind"] in (*SEED_KINDS, "ctxlab")]
    bare = [
        f"{r['claim_id']}@{r['model']}" for r in rows if r["flipped_by"] == "0" and not r["guard"]
    ]
    # the rows not covered yet are listed, each with its reason: a ratchet, not a pass
    unexplained = [claim for claim in bare if not CATALOGUE.uncovered_reason(claim)]
    assert not unexplained, f"rows nothing flips or explains: {', '.join(unexplained)}"
    listed = {c if "@" in c else f"{c}@scripted" for c in UNCOVERED}
    assert listed == set(bare), f"UNCOVERED is stale: now flipped {sorted(listed - set(bare))}"


@pytest.mark.mutations
def test_every_matching_row_is_flipped_by_a_code_or_answer_mutation_or_is_a_guard(
    matrix: Matrix,
) -> None:
    # a `match` that no broken harness and no wrong recorded answer can move is not
    # a result; UNCOVERED may explain a gap, but not for a row that matches
    rows = [r for r in matrix.rows() if r["status"] == "match"]
    bare = [f"{r['claim_id']}@{r['model']}" for r in rows if r["flipped_by"] == "0"]
    unguarded = [claim for claim in bare if not GUARDS.get(claim.partition("@")[0])]
    assert not unguarded, f"matching rows nothing flips: {', '.join(unguarded)}"


@pytest.mark.mutations
def test_the_unmutated_order_replay_gives_the_committed_claims(matrix: Matrix) -> None:
    committed = {f"{r['claim_id']}@{r['model']}": r for r in _rows(REPORTS / "claims.csv")}
    for claim, (status, value, _kind, _experiment) in matrix.baseline.items():
        assert not claim.startswith("!"), f"the unmutated run stopped: {claim}"
        row = committed[claim]
        assert (row["status"], row["reproduced_value"]) == (status, value), claim


@pytest.mark.mutations
def test_the_committed_matrix_is_what_the_code_produces(checked: Checked, tmp_path: Path) -> None:
    assert (REPORTS / MATRIX_FILE).is_file(), "run `ctxlab mutations` and commit reports/"
    committed = _rows(REPORTS / MATRIX_FILE)
    assert committed == _rows(write_matrix(checked.matrix, tmp_path)), (
        "reports/mutations.csv is stale: `ctxlab mutations`"
    )
    # the columns computed in this session, cell by cell (all of them when the whole matrix
    # was): a hand-edited or stale cell of a sampled mutation fails here
    fresh = {f"{r['claim_id']}@{r['model']}": r for r in checked.fresh.rows()}
    for row in committed:
        claim = f"{row['claim_id']}@{row['model']}"
        for mutation in checked.fresh.mutations:
            cell = fresh[claim][mutation.name]
            assert row[mutation.name] == cell, f"{mutation.name} × {claim}: computed {cell!r}"


@pytest.mark.mutations
def test_the_runs_read_only_files_the_committed_matrix_records_as_read(checked: Checked) -> None:
    # the committed matrix is kept while only files its runs never read change: a run of
    # this session that read a file the record calls unread would make that unsound
    if checked.reads is None:
        pytest.skip("the whole matrix was computed again: no committed record to hold it to")
    recorded = recorded_read(REPORTS)
    if recorded is None:
        pytest.skip("reports/mutations.inputs.json records no files read (an older record)")
    read = read_names(checked.reads, SOURCE_ROOT, PROJECT_ROOT / "cassettes")
    assert "lab/mutations/worker.py" in read  # the runs' reads were recorded at all
    assert sorted(set(read) - recorded) == []


# --- quick checks of the catalogue (always run) --------------------------------------------


def test_the_catalogue_holds_twenty_named_mutations_each_naming_claims() -> None:
    names = [m.name for m in MUTATIONS]
    assert len(names) >= 20
    assert len(set(names)) == len(names)
    # each names what it must flip, or says why nothing catches it yet
    assert all(bool(m.must_flip) != bool(m.gap) for m in MUTATIONS)
    assert sum(bool(m.must_flip) for m in MUTATIONS) >= 20


def test_no_matching_row_is_left_uncovered() -> None:
    # the quick half of the test above: UNCOVERED may not excuse a row that matches
    status = {f"{r['claim_id']}@{r['model']}": r["status"] for r in _rows(REPORTS / "claims.csv")}
    listed = [c if "@" in c else f"{c}@scripted" for c in UNCOVERED]
    assert not [c for c in listed if status.get(c) == "match"], listed


def test_no_mutation_stops_an_experiment_in_the_committed_matrix() -> None:
    """An experiment that dies under a mutation judges none of its rows: each cell
    of the committed matrix is a verdict, never ``abort`` (DSH_PRESSURE_0_9, SPAN_KEPT and
    CUTOFF_IGNORES_PAIRING aborted E1/E5 before; the committed matrix is what the code
    produces, checked under ``-m mutations``)."""
    rows = _rows(REPORTS / "mutations.csv")
    aborted = sorted({(name, row["experiment"]) for row in rows for name, cell in row.items()
                      if cell == "abort"})  # fmt: skip
    assert aborted == []


def test_guards_name_claims_of_the_table() -> None:
    ids = {r["claim_id"] for r in _rows(REPORTS / "claims.csv")}
    assert set(GUARDS) <= ids, set(GUARDS) - ids


def test_the_page_lists_what_each_mutation_flipped_and_the_guards() -> None:
    rows = [
        {"experiment": "E1", "claim_id": "E1-A", "model": "scripted", "kind": "article",
         "status": "match", "M1": "flip", "M2": "", "flipped_by": "1", "guard": "",
         "uncovered": ""},
        {"experiment": "E5", "claim_id": "AS-X", "model": "scripted", "kind": "article",
         "status": "match", "M1": "", "M2": "abort", "flipped_by": "0", "guard": "a constant",
         "uncovered": ""},
        {"experiment": "X-COST", "claim_id": "X-OURS", "model": "scripted", "kind": "ctxlab",
         "status": "match", "M1": "flip", "M2": "", "flipped_by": "1", "guard": "",
         "uncovered": ""},
        {"experiment": "X-COST", "claim_id": "X-LOST", "model": "scripted", "kind": "ctxlab",
         "status": "differs", "M1": "", "M2": "", "flipped_by": "0", "guard": "differs already",
         "uncovered": ""},
    ]  # fmt: skip
    html = mutations_page(rows, "ctxlab", lambda claim: f"evidence/{claim}.html")
    assert html.startswith("<!DOCTYPE html>") and "not a reproduction" in html
    m1 = html[html.index('id="m-M1"') : html.index('id="m-M2"')]
    assert "flips 2" in m1 and "E1-A</code>" in m1 and "X-OURS</code>" in m1
    assert 'href="evidence/E1-A.html"' in m1
    m2 = html[html.index('id="m-M2"') :]
    assert "flips no claim" in m2 and "<code>E5</code>" in m2.split("</section>")[0]
    assert re.search(r"AS-X</code></a> <span class=\"muted\">\(article\)</span>: a constant", html)
    # ctxlab's own rows: counted, and one that already differs is not listed as uncovered
    assert "1 of ctxlab's own 2 rows are flipped; 1 more already differ" in html
    assert "X-LOST" not in html


def _row(experiment: str, claim: str, cell: str = "") -> dict[str, str]:
    return {"experiment": experiment, "claim_id": claim, "M1": cell}


def test_a_matrix_of_some_experiments_keeps_the_other_rows_in_place() -> None:
    existing = [_row("E1", "A"), _row("X-BENCH", "B"), _row("X-BENCH", "C"), _row("X-COST", "D")]
    fresh = [_row("X-BENCH", "B", "flip"), _row("X-BENCH", "E")]
    merged = merged_rows(existing, fresh, ["X-BENCH"])
    assert [(r["claim_id"], r["M1"]) for r in merged] == [
        ("A", ""), ("B", "flip"), ("E", ""), ("D", "")
    ]  # fmt: skip
    assert merged_rows(existing[:1], fresh, ["X-BENCH"]) == existing[:1] + fresh


def test_ctxlab_mutations_names_the_rows_it_replaces_as_the_matrix_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lab.cli import mutations as command

    written: list[object] = []
    monkeypatch.setattr("lab.mutations.matrix.compute_matrix", lambda *a, **k: Matrix({}, {}, ()))
    monkeypatch.setattr(
        "lab.mutations.matrix.write_matrix",
        lambda matrix, out, only=(): written.append(only) or out / MATRIX_FILE,
    )
    args = argparse.Namespace(experiments=["x-bench"], jobs=1, out=tmp_path,
                              cassettes=tmp_path, project=None)  # fmt: skip
    command.mutations(args)
    assert written == [["X-BENCH"]]  # as the runner spells it: lower case would keep stale rows


def test_writing_one_experiments_matrix_over_another_catalogue_is_refused(tmp_path: Path) -> None:
    (tmp_path / MATRIX_FILE).write_text("experiment,claim_id,OTHER\nE1,A,\n", encoding="utf-8")
    matrix = Matrix(baseline={}, outcomes={}, mutations=tuple(MUTATIONS[:1]))
    with pytest.raises(ConfigError, match="another mutation catalogue"):
        write_matrix(matrix, tmp_path, only=["X-BENCH"])
    assert write_matrix(matrix, tmp_path).read_text(encoding="utf-8").startswith("experiment,")
