"""The claims plugin (lab/pytest_plugin.py), run as pytest itself on a temporary copy of
the committed baseline: items per row, failures naming the claim, expected failures for known
differences, the kind column, --update-baseline, reports that never overwrite the baseline, and
--record-mode=rewrite against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.fixed_model import fixed_model_server
from support.paths import ROOT, TESTS

from lab.baseline import claim_key, is_structural
from lab.cli import main
from lab.staging import mark

PROJECT_ROOT = ROOT
REPORTS = PROJECT_ROOT / "reports"
CLAIMS_TESTS = TESTS / "experiments" / "test_claims.py"
BASELINE_MODEL = "qwen2.5-coder-1.5b-instruct-q4_k_m"
"""The model of the shipped cassettes (the baseline's rows of E2-E4 name it)."""


def read_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def write_rows(path: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def edit_row(path: Path, claim_id: str, **values: str) -> dict[str, str]:
    """Change fields of one row in place; returns the row as it was."""
    columns, rows = read_rows(path)
    row = next(r for r in rows if r["claim_id"] == claim_id)
    before = dict(row)
    row.update(values)
    write_rows(path, columns, rows)
    return before


@pytest.fixture
def baseline(pytester: pytest.Pytester) -> Path:
    """A copy of the committed claims.csv and the views beside it (``<ID>.json``, read by the
    reports a run writes: an evidence page without its experiment's view shows every call of
    its cassettes, X-BENCH's thousands), without the built pages; the test module is the
    project's own."""
    folder = pytester.path / "base"
    folder.mkdir()
    mark(folder)  # a reports folder of ours, which `ctxlab run` may replace
    shutil.copy(REPORTS / "claims.csv", folder)
    for view in REPORTS.glob("*.json"):
        if view.name == "mutations.inputs.json":
            continue
        shutil.copy(view, folder)
    pytester.makepyfile(test_claims_copy=CLAIMS_TESTS.read_text(encoding="utf-8"))
    return folder / "claims.csv"


@pytest.fixture
def e1_reports(baseline: Path) -> Path:
    """A reports folder as `ctxlab run E1` leaves it beside the committed claims (the E1
    reports only, so the runs compared with it stay quick); returns its claims.csv."""
    assert main(["run", "E1", "--out", str(baseline.parent), "--project", str(PROJECT_ROOT)]) == 0
    return baseline


def run_claims(
    pytester: pytest.Pytester, baseline: Path, *args: str, temporary_reports: bool = False
) -> pytest.RunResult:
    """Run the copied claims tests; the reports go to the test's folder unless
    ``temporary_reports`` (the plugin's default: a temporary folder, kept when they differ)."""
    if not temporary_reports and "--report-dir" not in args:
        args = (*args, "--report-dir", str(pytester.path / "run-reports"))
    return pytester.runpytest(
        "-p", "experiments.pytest_plugin", "-p", "no:cacheprovider",
        "--baseline", str(baseline), "-rfEx", *args,
    )  # fmt: skip


def rows_of(baseline: Path, experiment: str) -> list[dict[str, str]]:
    return [r for r in read_rows(baseline)[1] if r["experiment"] == experiment]


def test_collect_lists_an_item_for_every_claim_id(
    pytester: pytest.Pytester, baseline: Path
) -> None:
    result = run_claims(pytester, baseline, "--collect-only", "-q")
    listed = result.stdout.str()
    for row in read_rows(baseline)[1]:
        key = claim_key(row)  # the claim id, and the model of a recorded claim
        assert f"test_claims_copy.py::test_claim[{key}]\n" in listed, key
        assert "@" in key or row["model"] == "scripted"


def test_a_differs_row_set_to_match_fails_naming_the_claim_and_restoring_passes(
    pytester: pytest.Pytester, baseline: Path
) -> None:
    rows = rows_of(baseline, "E1")
    differs = next(r for r in rows if r["status"] == "differs")
    claim_id, value = differs["claim_id"], differs["reproduced_value"]
    original = baseline.read_bytes()
    edit_row(baseline, claim_id, status="match")

    result = run_claims(pytester, baseline, "-k", "E1")
    result.assert_outcomes(passed=len(rows), failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*_ test_claim[[]{claim_id}[]] _*",
            f"{claim_id}: status changed: baseline match ('{value}'), now differs ('{value}')",
            f"FAILED test_claims_copy.py::test_claim[[]{claim_id}[]] - *",
        ]
    )

    baseline.write_bytes(original)
    result = run_claims(pytester, baseline, "-k", "E1")
    matched = sum(r["status"] == "match" for r in rows)
    result.assert_outcomes(passed=matched + 1, xfailed=len(rows) - matched)
    # The known difference is an expected failure whose reason is the row's note.
    result.stdout.fnmatch_lines([f"XFAIL test_claims_copy.py::test_claim[[]{claim_id}[]] - *"])
    assert differs["note"][:60] in result.stdout.str()


def test_a_match_row_that_no_longer_matches_fails(
    pytester: pytest.Pytester, baseline: Path
) -> None:
    row = next(r for r in rows_of(baseline, "E1") if r["status"] == "match")
    edit_row(baseline, row["claim_id"], status="differs", note="pretend it differed")
    result = run_claims(pytester, baseline, "-k", row["claim_id"])
    result.assert_outcomes(failed=1)
    changed = f"*{row['claim_id']}: status changed: baseline differs*now match*"
    result.stdout.fnmatch_lines([changed])


def test_a_structural_value_change_fails_even_when_the_status_holds(
    pytester: pytest.Pytester, baseline: Path
) -> None:
    row = next(r for r in rows_of(baseline, "E2") if is_structural(r))
    edit_row(baseline, row["claim_id"], reproduced_value=row["reproduced_value"] + " (was)")
    key = f"test_claim and {row['claim_id']} and {row['model']}"  # this model's row only
    result = run_claims(pytester, baseline, "-k", key)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*{row['claim_id']}@{row['model']}: structural value changed: "
            f"baseline {row['status']} (*(was)'), now*"
        ]
    )


def test_a_model_value_change_with_the_same_status_passes(
    pytester: pytest.Pytester, baseline: Path
) -> None:
    row = next(r for r in rows_of(baseline, "E1") if not is_structural(r))
    edit_row(baseline, row["claim_id"], reproduced_value="something else")
    run_claims(pytester, baseline, "-k", row["claim_id"]).assert_outcomes(
        **({"passed": 1} if row["status"] == "match" else {"xfailed": 1})
    )


def test_a_claim_missing_from_the_baseline_fails_the_completeness_item(
    pytester: pytest.Pytester, baseline: Path
) -> None:
    columns, rows = read_rows(baseline)
    dropped = next(r for r in rows if r["experiment"] == "E1")
    write_rows(baseline, columns, [r for r in rows if r is not dropped])
    result = run_claims(pytester, baseline, "-k", "test_claims_complete and E1")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*{dropped['claim_id']}: not in the baseline, now *"])


def test_a_baseline_row_no_experiment_produces_fails(
    pytester: pytest.Pytester, baseline: Path
) -> None:
    columns, rows = read_rows(baseline)
    ghost = {**rows[0], "claim_id": "E1-GHOST", "reproduced_value": "x", "status": "match"}
    write_rows(baseline, columns, [*rows, ghost])
    result = run_claims(pytester, baseline, "-k", "E1-GHOST")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["E1-GHOST: baseline match ('x'), no longer produced"])


def test_a_kind_column_becomes_a_marker_and_the_ids_stay(
    pytester: pytest.Pytester, baseline: Path
) -> None:
    columns, rows = read_rows(baseline)
    for row in rows:
        row["kind"] = "structural" if is_structural(row) else "model-dependent"
    write_rows(baseline, [*columns[:2], "kind", *columns[2:]], rows)
    result = run_claims(pytester, baseline, "--collect-only", "-q", "-m", "structural")
    listed = [line for line in result.stdout.lines if "::test_claim[" in line]
    expected = [claim_key(r) for r in rows if r["kind"] == "structural"]
    assert listed == [f"test_claims_copy.py::test_claim[{i}]" for i in expected]
    assert expected


def test_update_baseline_accepts_the_change_and_rewrites_the_baseline(
    pytester: pytest.Pytester, baseline: Path
) -> None:
    original = baseline.read_bytes()
    differs = next(r for r in rows_of(baseline, "E1") if r["status"] == "differs")
    edit_row(baseline, differs["claim_id"], status="match")
    result = run_claims(pytester, baseline, "-k", "E1", "--update-baseline")
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"*accepted {differs['claim_id']}: status changed*"])
    # The committed truth is back, byte for byte: that it passes again is the second run of
    # test_a_differs_row_set_to_match_fails_naming_the_claim_and_restoring_passes (the same
    # bytes, the same selection), not run a third time here.
    assert baseline.read_bytes() == original


def test_a_run_compares_its_reports_and_never_writes_the_baseline_folder(
    pytester: pytest.Pytester, e1_reports: Path
) -> None:
    baseline = e1_reports
    before = {str(p): p.read_bytes() for p in baseline.parent.rglob("*") if p.is_file()}
    result = run_claims(pytester, baseline, "-k", "E1", temporary_reports=True)
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"reports of this run are identical to {baseline.parent}"])
    assert {str(p): p.read_bytes() for p in baseline.parent.rglob("*") if p.is_file()} == before

    edit_row(baseline, "E1-NAIVE", claim="a reworded claim")  # the reports will differ
    out = pytester.path / "out"
    result = run_claims(pytester, baseline, "-k", "E1", "--report-dir", str(out))
    result.stdout.fnmatch_lines([f"reports written to {out} differ from * in: *claims.csv*"])
    assert (out / "E1.json").is_file() and (out / "index.html").is_file()
    assert (out / "claims.csv").read_bytes() == REPORTS.joinpath("claims.csv").read_bytes()


def test_rewrite_needs_a_provider(pytester: pytest.Pytester, baseline: Path) -> None:
    result = run_claims(pytester, baseline, "--record-mode=rewrite")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--record-mode=rewrite needs --provider" in result.stderr.str()


# --- --record-mode=rewrite against a live (loopback) OpenAI-compatible server ---------------


@pytest.fixture
def fixed_model() -> Iterator[str]:
    with fixed_model_server() as url:
        yield url


def test_rewrite_records_the_selected_experiment_then_judges_it(
    pytester: pytest.Pytester,
    baseline: Path,
    fixed_model: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CTXLAB_FAKE_KEY", "sk-fake-key-0123456789abcdef")
    cassettes = pytester.path / "scratch"
    rows = [r for r in rows_of(baseline, "E3") if r["model"] == BASELINE_MODEL]
    structural = [r["claim_id"] for r in rows if is_structural(r)]
    selected = f"({' or '.join(structural)}) and {BASELINE_MODEL}"
    result = run_claims(
        pytester, baseline, "-k", selected, "--record-mode=rewrite",
        "--provider", "openai-compatible", "--base-url", fixed_model, "--model", BASELINE_MODEL,
        "--api-key-env", "CTXLAB_FAKE_KEY", "--cassettes", str(cassettes),
    )  # fmt: skip
    # The baseline's rows of a model are judged against that model's re-recording.
    result.assert_outcomes(passed=len(structural))
    result.stdout.fnmatch_lines(["ctxlab: re-recording E3 from openai-compatible"])
    folder = cassettes / "E3" / f"openai-compatible-{BASELINE_MODEL}"
    recorded = json.loads((folder / "rounds.json").read_text(encoding="utf-8"))
    assert recorded["provenance"]["provider"] == "openai-compatible"
    assert recorded["provenance"]["model"] == BASELINE_MODEL
    assert not (cassettes / "E2").exists()  # only what the selected claims need
    # nothing else replays this folder's one set (X-GATE and X-COST need E3's gate variant or
    # E4 in the same set), so nothing is named stale
    assert "were not judged in this run" not in result.stdout.str()


def test_experiments_that_replay_what_was_recorded_are_named(tmp_path: Path) -> None:
    from lab.recording import dependents

    assert dependents(["E3"]) == ["X-GATE", "X-COST"]
    assert dependents(["E4"], PROJECT_ROOT / "cassettes") == ["X-GATE", "X-COST"]
    assert dependents(["E3", "X-GATE"], PROJECT_ROOT / "cassettes") == ["X-COST"]
    assert dependents(["E2"]) == []
    assert dependents(["E3"], tmp_path) == []  # no set there for them to replay


def test_a_missing_key_is_one_usage_error_before_any_test_runs(
    pytester: pytest.Pytester, baseline: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a key a live run once gave 40 identical failures after 104 s; now exit 4 and one
    line, nothing run."""
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    result = run_claims(
        pytester, baseline, "-k", "E3", "--record-mode=rewrite",
        "--provider", "deepseek", "--cassettes", str(pytester.path / "scratch"),
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == [
        "ERROR: cannot record: No API key: set the environment variable DEEPSEEK_API_KEY."
    ]
    assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str()
    assert not (pytester.path / "scratch").exists()


def test_a_wrong_key_is_one_usage_error_before_any_test_runs(
    pytester: pytest.Pytester, baseline: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key the provider refuses took 220 s and 49 failures repeating one 401 sentence; now
    one probe request, exit 4 and one line naming the variable, well under 15 s."""
    import time

    from support.loopback import RawServer

    body = b'{"error":{"message":"Authentication Fails"}}'
    reply = (
        b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-wrong-0123456789abcdef")
    with RawServer(reply) as server:
        started = time.monotonic()
        result = run_claims(
            pytester, baseline, "-k", "E3", "--record-mode=rewrite", "--provider", "deepseek",
            "--base-url", server.base_url, "--cassettes", str(pytester.path / "scratch"),
        )  # fmt: skip
        took = time.monotonic() - started
        asked = len(server.accepted)
    assert result.ret == pytest.ExitCode.USAGE_ERROR and took < 15
    [error] = [line for line in result.stderr.lines if line.strip()]
    assert "refused the API key in DEEPSEEK_API_KEY (401)" in error
    assert asked == 1 and not (pytester.path / "scratch").exists()


def test_a_missing_record_extra_is_one_usage_error(
    pytester: pytest.Pytester, baseline: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lab.recorder.local.modelfile as modelfile
    import lab.recorder.local.server as localserver

    monkeypatch.setattr(modelfile, "check_parts", lambda model: None)  # as if the parts were in
    monkeypatch.setattr(localserver.importlib.util, "find_spec", lambda name: None)  # no llama_cpp
    result = run_claims(
        pytester, baseline, "-k", f"E3-FIRST and {BASELINE_MODEL}", "--record-mode=rewrite",
        "--provider", "local", "--cassettes", str(pytester.path / "scratch"),
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    [error] = [line for line in result.stderr.lines if line.strip()]
    assert error.startswith("ERROR: cannot record: llama_cpp is not installed")
    assert "'.[record]'" in error


def test_a_failed_rerecording_fails_each_claim_with_the_reason(
    pytester: pytest.Pytester, baseline: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lab.recording as recording
    from harness.errors import CtxlabError

    def fails(ids: object, settings: object) -> list[str]:
        raise CtxlabError("Request 2 of the recording got no answer; nothing was written.")

    monkeypatch.setattr(recording, "record_experiments", fails)
    monkeypatch.setattr("lab.preflight.probe_key", lambda *args: None)  # offline
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-fake-key-0123456789abcdef")
    result = run_claims(
        pytester, baseline, "-k", f"E3-FIRST and {BASELINE_MODEL}", "--record-mode=rewrite",
        "--provider", "deepseek", "--cassettes", str(pytester.path / "scratch"),
    )  # fmt: skip
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*E3 could not be re-recorded: Request 2 *got no answer*"])
