"""The ``ctxlab`` command line: exit statuses, output, and claims.csv merging."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

from lab.claims import CLAIM_COLUMNS
from lab.cli import main
from lab.registry import EXPERIMENTS
from lab.staging import mark

PROJECT_ROOT = ROOT


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def summary_counts(line: str) -> tuple[int, int, int, int]:
    # "claims: N match, M differ, K mixed (of T)": claims, not rows (one per experiment and
    # claim id, whatever number of models measured it)
    head, _, total = line.partition(" (of ")
    matched, differed, mixed = head.removeprefix("claims: ").split(", ")
    return (
        int(matched.removesuffix(" match")),
        int(differed.removesuffix(" differ")),
        int(mixed.removesuffix(" mixed")),
        int(total.removesuffix(")")),
    )


def claim_statuses(table: list[dict[str, str]]) -> list[str]:
    """Each claim's status over its models: match, differs or mixed."""
    seen: dict[tuple[str, str], set[str]] = {}
    for row in table:
        seen.setdefault((row["experiment"], row["claim_id"]), set()).add(row["status"])
    return [next(iter(s)) if len(s) == 1 else "mixed" for s in seen.values()]


def run_module(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "experiments", *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_run_e1_prints_the_summary_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "E1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("E1  ")
    assert out[-2] == f"reports written to {tmp_path}"  # where, before the counts
    matched, differed, mixed, total = summary_counts(out[-1])
    table = rows(tmp_path / "claims.csv")
    assert matched + differed + mixed == total == len(table)  # E1 is scripted: a row a claim
    assert matched == sum(r["status"] == "match" for r in table)
    assert differed == sum(r["status"] == "differs" for r in table)


def test_lower_case_id_is_accepted(tmp_path: Path) -> None:
    assert main(["run", "e1", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "E1.json").is_file()


def test_unknown_experiment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "E9", "--out", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1
    assert "E9" in err[0]
    assert "Traceback" not in captured.err
    assert not (tmp_path / "claims.csv").exists()


def test_unknown_experiment_through_a_subprocess(tmp_path: Path) -> None:
    done = run_module("run", "E1", "NOPE", "--out", str(tmp_path))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "NOPE" in lines[0]
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "E1.json").exists()  # nothing ran


def test_rows_of_other_experiments_are_kept(tmp_path: Path) -> None:
    other = {
        "experiment": "E2",
        "version": "1",  # a kept row keeps the version it was measured at
        "claim_id": "E2-S1-TOOLS",
        "claim": 'No tool calls, "quoted", with a comma',
        "article_value": "0",
        "reproduced_value": "0",
        "status": "match",
        "reason_class": "",
        "source": "deepseek/deepseek-flash",
        "note": "",
        "kind": "article",
        "article_source": "",
        "model": "deepseek-flash",
    }
    stale_e1 = {**other, "experiment": "E1", "claim_id": "E1-STALE", "claim": "old row"}
    mark(tmp_path)  # a reports folder of an earlier run
    with (tmp_path / "claims.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CLAIM_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerow(other)
        writer.writerow(stale_e1)

    assert main(["run", "E1", "--out", str(tmp_path)]) == 0

    table = rows(tmp_path / "claims.csv")
    assert other in table
    assert not any(r["claim_id"] == "E1-STALE" for r in table)  # E1's rows are replaced
    e1_ids = [r["claim_id"] for r in table if r["experiment"] == "E1"]
    assert len(e1_ids) == len(set(e1_ids)) >= 5
    assert {r["version"] for r in table if r["experiment"] == "E1"} == {
        str(EXPERIMENTS["E1"].version)
    }
    # E1 comes first (report order), the unknown experiment after it.
    assert table[0]["experiment"] == "E1"
    assert table[-1] == other


def test_summary_counts_include_kept_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row = {c: "" for c in CLAIM_COLUMNS} | {
        "experiment": "E3",
        "claim_id": "E3-FIRST",
        "status": "differs",
        "note": "kept from an earlier run",
    }
    mark(tmp_path)  # a reports folder of an earlier run
    with (tmp_path / "claims.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CLAIM_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerow(row)
    assert main(["run", "E1", "--out", str(tmp_path)]) == 0
    counts = summary_counts(capsys.readouterr().out.strip().splitlines()[-1])
    table = rows(tmp_path / "claims.csv")
    statuses = claim_statuses(table)
    assert counts == (
        statuses.count("match"),
        statuses.count("differs"),
        statuses.count("mixed"),
        len(statuses),
    )
    assert any(r["claim_id"] == "E3-FIRST" for r in table)


def test_missing_command_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2


def test_without_the_suite_extra_ctxlab_says_which_extra_in_one_sentence(tmp_path: Path) -> None:
    """The library needs only httpx; the ctxlab command needs the `suite` extra (pandas …)."""
    script = (
        "import sys; sys.modules['pandas'] = None\n"  # as if pandas were not installed
        "from experiments.cli import main\n"
        f"sys.exit(main(['run', 'E1', '--out', {str(tmp_path / 'r')!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "ctxlab: pandas is not installed; the ctxlab command needs the suite extra: from your "
        "ctxlab clone, pip install -c constraints.txt -e '.[suite]'."
    ]
    assert not (tmp_path / "r").exists()
