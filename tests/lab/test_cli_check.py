"""``ctxlab run --check`` (the per-claim diff against the baseline) and ``ctxlab record`` into a
scratch cassette folder, which must leave the project's reports/ alone."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from support.fixed_model import fixed_model_server
from support.paths import ROOT

from lab.cli import main

PROJECT_ROOT = ROOT
BASELINE = PROJECT_ROOT / "reports" / "claims.csv"


def copy_with(tmp_path: Path, claim_id: str, **values: str) -> Path:
    """A copy of the committed baseline with one row changed."""
    with BASELINE.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        columns, rows = list(reader.fieldnames or []), list(reader)
    for row in rows:
        if row["claim_id"] == claim_id:
            row.update(values)
    path = tmp_path / "baseline.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def e1_differs() -> dict[str, str]:
    with BASELINE.open(encoding="utf-8", newline="") as handle:
        return next(
            r
            for r in csv.DictReader(handle)
            if r["experiment"] == "E1" and r["status"] == "differs"
        )


def test_check_passes_against_the_committed_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "E1", "--out", str(tmp_path), "--check"]) == 0
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1] == f"No claim changed against {BASELINE}."


def test_check_exits_1_with_the_per_claim_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row = e1_differs()
    baseline = copy_with(tmp_path, row["claim_id"], status="match")
    out_dir = tmp_path / "reports"
    assert main(["run", "E1", "--out", str(out_dir), "--check", "--baseline", str(baseline)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    value = row["reproduced_value"]
    assert lines[-4:] == [
        f"1 claim changed against {baseline}:",
        "",
        f"- {row['claim_id']}: status changed: baseline match ('{value}'), now differs ('{value}')",
        f"{tmp_path} was not written; accept the change with `ctxlab run`.",
    ]
    assert lines[-5].startswith("claims: ")  # the usual output comes first
    assert lines[-6] == f"reports written to {out_dir}"
    assert (out_dir / "claims.csv").is_file()  # the check's own reports, where --out said


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("changed", [False, True], ids=["unchanged", "changed"])
def test_check_never_writes_the_baselines_folder(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    changed: bool,
) -> None:
    """Whatever it finds, ``run --check`` leaves the reports folder byte for byte as it was
    (once the first check rewrote it, so the second passed)."""
    root = tmp_path / "project"
    shutil.copytree(PROJECT_ROOT / "reports", root / "reports")
    (root / "pyproject.toml").write_text('[project]\nname = "ctxlab"\n', encoding="utf-8")
    if changed:  # a baseline the run disagrees with, in the project's own reports/
        edited = copy_with(tmp_path, e1_differs()["claim_id"], status="match")
        shutil.copy(edited, root / "reports" / "claims.csv")
        (root / "reports" / "E1.json").write_text("{}\n", encoding="utf-8")
    before = snapshot(root / "reports")
    monkeypatch.chdir(root)
    cassettes = str(PROJECT_ROOT / "cassettes")
    for _ in range(2 if changed else 1):  # a second check finds what the first found
        assert main(["run", "E1", "--check", "--cassettes", cassettes]) == int(changed)
        assert snapshot(root / "reports") == before
    out = capsys.readouterr().out
    written = Path(out.split("reports written to ", 1)[1].splitlines()[0])
    assert written != root / "reports" and (written / "E1.json").is_file()
    shutil.rmtree(written)


def test_check_refuses_to_write_into_the_baselines_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(BASELINE, tmp_path / "claims.csv")
    argv = [
        "run",
        "E1",
        "--check",
        "--out",
        str(tmp_path),
        "--baseline",
        str(tmp_path / "claims.csv"),
    ]
    assert main(argv) == 2
    assert "--check never writes the baseline's folder" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claims.csv"]


def test_without_check_the_exit_status_ignores_the_claims(tmp_path: Path) -> None:
    baseline = copy_with(tmp_path, e1_differs()["claim_id"], status="match")
    assert main(["run", "E1", "--out", str(tmp_path / "r"), "--baseline", str(baseline)]) == 0


def test_check_names_a_missing_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.csv"
    assert main(["run", "E1", "--out", str(tmp_path), "--check", "--baseline", str(missing)]) == 2
    assert f"No claims baseline at {missing}" in capsys.readouterr().err
    assert not (tmp_path / "E1.json").exists()


def test_record_into_scratch_cassettes_leaves_reports_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "project"  # stands in for the project root: its reports/ must not change
    (root / "reports").mkdir(parents=True)
    shutil.copy(BASELINE, root / "reports" / "claims.csv")
    shutil.copytree(PROJECT_ROOT / "cassettes", root / "cassettes")
    (root / "pyproject.toml").write_text('[project]\nname = "ctxlab"\n', encoding="utf-8")
    monkeypatch.setenv("CTXLAB_FAKE_KEY", "sk-fake-key-0123456789abcdef")
    before = {p.name: p.read_bytes() for p in (root / "reports").iterdir()}
    scratch = tmp_path / "scratch"
    with fixed_model_server() as url:
        status = main(
            ["record", "E3", "--provider", "openai-compatible", "--base-url", url,
             "--model", "fixed-model", "--api-key-env", "CTXLAB_FAKE_KEY",
             "--cassettes", str(scratch), "--project", str(root)]
        )  # fmt: skip
    assert status == 0
    assert (scratch / "E3" / "openai-compatible-fixed-model" / "rounds.json").is_file()
    assert {p.name: p.read_bytes() for p in (root / "reports").iterdir()} == before
    out = capsys.readouterr().out
    written_to = Path(out.split("(reports → ", 1)[1].split("):", 1)[0])
    assert (written_to / "E3.json").is_file() and written_to != root / "reports"
    shutil.rmtree(written_to)
