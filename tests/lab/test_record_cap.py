"""``ctxlab record --max-tokens``: a cap on every answer, sent on the wire, kept in the
cassette's provenance and shown in the report (for a model that never stops on its own)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.fixed_model import fixed_model_server
from support.paths import ROOT

from harness.client import ChatClient
from harness.messages import Message
from harness.model import ChatRequest
from lab.cli import main

PROJECT_ROOT = ROOT


@pytest.mark.parametrize(("asked", "sent"), [(None, 64), (8_192, 64), (16, 16)])
def test_a_cap_in_params_bounds_every_answer_and_a_smaller_request_limit_wins(
    asked: int | None, sent: int
) -> None:
    client = ChatClient(
        "m", base_url="http://127.0.0.1:9/v1", api_key="k", params={"max_tokens": 64}
    )
    request = ChatRequest(messages=(Message.user("hi"),), max_tokens=asked)
    assert client.build_body(request)["max_tokens"] == sent


def test_record_with_a_cap_sends_it_and_keeps_it_in_the_provenance_and_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "project"
    (root / "reports").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "ctxlab"\n', encoding="utf-8")
    monkeypatch.setenv("CTXLAB_FAKE_KEY", "sk-fake-key-0123456789abcdef")
    cassettes, reports = tmp_path / "cassettes", tmp_path / "reports"
    with fixed_model_server() as url:
        status = main(
            ["record", "E3", "--provider", "openai-compatible", "--base-url", url,
             "--model", "fixed-model", "--api-key-env", "CTXLAB_FAKE_KEY", "--max-tokens", "64",
             "--cassettes", str(cassettes), "--out", str(reports), "--project", str(root)]
        )  # fmt: skip
    assert status == 0
    cassette = json.loads(
        (cassettes / "E3" / "openai-compatible-fixed-model" / "rounds.json").read_text()
    )
    assert cassette["provenance"]["params"]["max_tokens"] == 64
    bodies = [i["request"]["body"]["json"] for i in cassette["interactions"]]
    assert bodies and all(b["max_tokens"] == 64 for b in bodies)
    assert "max_tokens=64" in (reports / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("value", ["0", "-5", "lots"])
def test_a_bad_cap_is_refused_naming_the_option(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["record", "E3", "--provider", "local", f"--max-tokens={value}"])
    assert f"argument --max-tokens: must be a whole number of at least 1, not {value!r}" in (
        capsys.readouterr().err
    )


def e4_claims_of(report: str) -> dict[str, Any]:
    from experiments.e4 import claims as e4_claims
    from experiments.e4.view import E4View
    from lab.views import from_data

    data = json.loads((PROJECT_ROOT / "reports" / report).read_text(encoding="utf-8"))
    view = from_data(E4View, data)
    return {c.claim_id: c for c in e4_claims.claims(view)}


def test_e4_notes_name_the_cap_of_a_capped_recording_and_only_of_one() -> None:
    capped = e4_claims_of("E4@qwen2.5-coder-0.5b-instruct-q4_k_m.json")
    assert capped["DSH-RANGE"].status == "differs"
    for claim_id in ("DSH-RANGE", "DSH-SUMMARY-SECTIONS", "DSH-SUMMARY-EXACT"):
        assert "capped every answer at 1024 tokens" in capped[claim_id].note
    plain = e4_claims_of("E4.json")
    assert not any("capped" in c.note for c in plain.values())
