"""What lets CI skip recomputing a current mutation matrix, and what stops it from skipping a
stale one: the digest of the matrix's inputs (:mod:`lab.mutations.inputs`), the day's sample,
and the committed file read back as a matrix (:mod:`lab.mutations.committed`)."""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import ROOT

from experiments.mutations.catalogue import MUTATIONS
from lab.mutations.committed import committed_matrix
from lab.mutations.inputs import (
    INPUTS_FILE,
    changed_inputs,
    digest_of,
    input_hashes,
    inputs_digest,
    matrix_is_current,
    read_names,
    recorded_digest,
    sample_of,
    write_inputs,
)
from lab.mutations.matrix import MATRIX_FILE, Matrix, write_matrix
from lab.mutations.reads import source_of


def _tree(root: Path) -> tuple[Path, Path]:
    for folder in ("harness", "lab", "experiments", "cassettes/E3"):
        (root / folder).mkdir(parents=True)
    (root / "harness" / "agent.py").write_text("x = 1\n")
    (root / "cassettes" / "E3" / "a.yaml").write_text("answer: 1\n")
    (root / "pyproject.toml").write_text("[project]\n")
    return root, root / "cassettes"


def test_the_digest_moves_with_code_recordings_and_pins_and_not_with_caches(
    tmp_path: Path,
) -> None:
    root, cassettes = _tree(tmp_path)
    first = inputs_digest(root, cassettes)
    (root / "lab" / "__pycache__").mkdir()
    (root / "lab" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    assert inputs_digest(root, cassettes) == first
    for changed in ("harness/agent.py", "cassettes/E3/a.yaml", "pyproject.toml"):
        path = root / changed
        before = path.read_bytes()
        path.write_bytes(before + b"# changed\n")
        assert inputs_digest(root, cassettes) != first, changed
        path.write_bytes(before)
    assert inputs_digest(root, cassettes) == first
    (root / "experiments" / "new.py").write_text("")  # a file added counts, empty or not
    assert inputs_digest(root, cassettes) != first
    moved = tmp_path / "elsewhere"  # the recordings are named by their place in the folder
    shutil.copytree(cassettes, moved)
    assert inputs_digest(root, moved) == inputs_digest(root, cassettes)


def test_a_recorded_digest_is_read_back_and_a_damaged_one_is_none(tmp_path: Path) -> None:
    assert recorded_digest(tmp_path) is None
    write_inputs(tmp_path, "ab" * 32)
    assert recorded_digest(tmp_path) == "ab" * 32
    write_inputs(tmp_path, None)  # a matrix of some experiments only: nothing vouches for it
    assert recorded_digest(tmp_path) is None
    for damaged in ("{", "[]", '{"inputs_sha256": 5}', "[" * 100_000):
        (tmp_path / INPUTS_FILE).write_text(damaged)
        assert recorded_digest(tmp_path) is None


def test_the_sample_is_the_same_all_day_and_covers_the_catalogue_over_the_days() -> None:
    names = [m.name for m in MUTATIONS]
    day = datetime.date(2026, 12, 6)
    assert sample_of(names, 4, day) == sample_of(names, 4, day)
    assert len(sample_of(names, 4, day)) == 4
    seen = {n for d in range(120) for n in sample_of(names, 4, day + datetime.timedelta(d))}
    assert seen == set(names)
    assert sample_of(names, 500, day) == names


def _matrix() -> Matrix:
    m1, m2, m3 = MUTATIONS[:3]
    baseline = {
        "E1-A@scripted": ["match", "4", "article", "E1"],
        "E1-B@scripted": ["differs", "7", "ctxlab", "E1"],
        "E3-C@qwen": ["mixed", "2 of 3", "article", "E3"],
    }
    outcomes = {
        m1.name: {"E1-A@scripted": ["differs", "5", "article", "E1"],
                  "E1-B@scripted": ["differs", "8", "ctxlab", "E1"],
                  "E3-C@qwen": ["mixed", "2 of 3", "article", "E3"]},
        m2.name: {"!E1": ["RuntimeError: stopped"],
                  "E3-C@qwen": ["match", "3 of 3", "article", "E3"]},
        m3.name: {"E1-A@scripted": ["match", "4", "article", "E1"],
                  "E1-B@scripted": ["match", "7", "ctxlab", "E1"]},
    }  # fmt: skip
    return Matrix(baseline, outcomes, (m1, m2, m3))


def test_the_committed_file_read_back_gives_every_cell_again(tmp_path: Path) -> None:
    matrix = _matrix()
    write_matrix(matrix, tmp_path)
    again = committed_matrix(tmp_path, matrix.mutations, matrix.baseline)
    assert again.rows() == matrix.rows()
    assert {m.name: again.flipped(m.name) for m in matrix.mutations} == {
        m.name: matrix.flipped(m.name) for m in matrix.mutations
    }


def test_a_stale_file_does_not_read_back_as_the_run(tmp_path: Path) -> None:
    matrix = _matrix()
    write_matrix(matrix, tmp_path)
    grown = {**matrix.baseline, "E1-NEW@scripted": ["match", "1", "article", "E1"]}
    again = committed_matrix(tmp_path, matrix.mutations, grown)
    new = next(r for r in again.rows() if r["claim_id"] == "E1-NEW")
    assert {new[m.name] for m in matrix.mutations} == {"abort"}  # no committed cell for it
    (tmp_path / MATRIX_FILE).write_text(
        (tmp_path / MATRIX_FILE).read_text().replace(",flip,", ",maybe,", 1)
    )
    with pytest.raises(Exception, match="unknown cell 'maybe'"):
        committed_matrix(tmp_path, matrix.mutations, matrix.baseline)


def test_ctxlab_mutations_records_the_digest_only_for_a_whole_matrix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lab.cli import mutations as command

    monkeypatch.setattr("lab.mutations.matrix.compute_matrix", lambda *a, **k: _matrix())
    monkeypatch.setattr("lab.mutations.inputs.digest_of", lambda *a: "cd" * 32)
    args = argparse.Namespace(experiments=[], jobs=1, out=tmp_path, cassettes=tmp_path,
                              project=None)  # fmt: skip
    assert command.mutations(args) == 0
    assert recorded_digest(tmp_path) == "cd" * 32
    args.experiments = ["E1"]
    assert command.mutations(args) == 0
    assert recorded_digest(tmp_path) is None


def test_a_tree_changed_while_the_matrix_ran_is_vouched_for_by_no_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lab.cli import mutations as command

    digests = iter(["ab" * 32, "cd" * 32])  # before the runs, after them
    monkeypatch.setattr("lab.mutations.matrix.compute_matrix", lambda *a, **k: _matrix())
    monkeypatch.setattr("lab.mutations.inputs.digest_of", lambda *a: next(digests))
    args = argparse.Namespace(experiments=[], jobs=1, out=tmp_path, cassettes=tmp_path,
                              project=None)  # fmt: skip
    assert command.mutations(args) == 0
    assert recorded_digest(tmp_path) is None


# --- a matrix kept when only files none of its runs read changed ---------------------------

_NAMES = ["harness/a.py", "lab/b.py", "experiments/c.py", "cassettes/d.yaml", "pyproject.toml"]


def _recorded_tree(root: Path, read: list[str]) -> tuple[Path, Path]:
    root, cassettes = _tree(root)
    (root / "lab" / "report.py").write_text("page = 1\n")
    files = input_hashes(root, cassettes)
    write_inputs(root / "reports", digest_of(files), {}, files, read)
    return root, cassettes


def test_a_change_to_a_file_no_run_read_keeps_the_matrix_and_any_other_change_does_not(
    tmp_path: Path,
) -> None:
    root, cassettes = _recorded_tree(tmp_path, ["harness/agent.py", "cassettes/E3/a.yaml"])
    reports = root / "reports"
    assert matrix_is_current(reports, root, cassettes)
    (root / "lab" / "report.py").write_text("page = 2\n")  # read by no run
    assert changed_inputs(reports, root, cassettes) == ["lab/report.py"]
    assert matrix_is_current(reports, root, cassettes)
    for read in ("harness/agent.py", "cassettes/E3/a.yaml", "pyproject.toml"):  # pins: read
        before = (root / read).read_bytes()
        (root / read).write_bytes(before + b"# changed\n")
        assert not matrix_is_current(reports, root, cassettes), read
        (root / read).write_bytes(before)
    (root / "lab" / "new.py").write_text("")  # a file added: a listing may find it
    assert changed_inputs(reports, root, cassettes) is None
    assert not matrix_is_current(reports, root, cassettes)


def test_a_record_whose_hashes_do_not_give_its_digest_vouches_for_nothing_changed(
    tmp_path: Path,
) -> None:
    root, cassettes = _recorded_tree(tmp_path, ["harness/agent.py"])
    reports = root / "reports"
    data = json.loads((reports / INPUTS_FILE).read_text())
    data["files"]["harness/agent.py"] = "00" * 32  # edited by hand: the digest disagrees
    (reports / INPUTS_FILE).write_text(json.dumps(data))
    assert changed_inputs(reports, root, cassettes) is None
    assert matrix_is_current(reports, root, cassettes)  # still this very tree's digest
    (root / "lab" / "report.py").write_text("page = 2\n")
    assert not matrix_is_current(reports, root, cassettes)
    write_inputs(reports, digest_of(input_hashes(root, cassettes)))  # an older record: no files
    (root / "lab" / "report.py").write_text("page = 3\n")
    assert not matrix_is_current(reports, root, cassettes)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(read=st.sets(st.sampled_from(_NAMES)), changed=st.sets(st.sampled_from(_NAMES)))
def test_the_matrix_is_kept_exactly_when_no_changed_file_was_read(
    tmp_path_factory: pytest.TempPathFactory, read: set[str], changed: set[str]
) -> None:
    root = tmp_path_factory.mktemp("tree")
    for folder in ("harness", "lab", "experiments", "cassettes"):
        (root / folder).mkdir()
    for name in _NAMES:
        (root / name).write_text(f"{name}\n")
    files = input_hashes(root, root / "cassettes")
    write_inputs(root, digest_of(files), {}, files, sorted(read))
    for name in changed:
        (root / name).write_text("changed\n")
    kept = matrix_is_current(root, root, root / "cassettes")
    assert kept == (not read & changed and "pyproject.toml" not in changed)


def test_a_worker_records_the_files_it_opened_and_the_modules_it_loaded(tmp_path: Path) -> None:
    (tmp_path / "lazy_module.py").write_text("X = 1\n")
    (tmp_path / "data.txt").write_text("d\n")
    script = (
        "import json, sys\n"
        "from lab.mutations.reads import files_read, record_reads\n"
        "record_reads()\n"
        "open('data.txt').read()\n"
        "sys.path.insert(0, '.')\n"
        "import lazy_module\n"
        "print(json.dumps(files_read()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    read = set(json.loads(done.stdout))
    assert {str((tmp_path / n).resolve()) for n in ("data.txt", "lazy_module.py")} <= read
    assert str((ROOT / "lab" / "mutations" / "reads.py").resolve()) in read  # loaded before
    assert not [p for p in read if p.endswith(".pyc")]  # bytecode named by its source
    assert source_of("/a/__pycache__/m.cpython-311.pyc") == "/a/m.py"


def test_read_names_are_the_inputs_names_and_always_the_pins(tmp_path: Path) -> None:
    root, cassettes = _tree(tmp_path)
    reads = [str((root / "harness" / "agent.py").resolve()), "/usr/lib/python3.11/os.py"]
    assert read_names(reads, root, cassettes) == [
        "constraints.txt", "harness/agent.py", "pyproject.toml"
    ]  # fmt: skip
