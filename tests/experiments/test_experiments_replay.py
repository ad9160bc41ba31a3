"""The shipped cassettes replay offline (the network guard is on) and the claims they give
follow from what was replayed."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from support.paths import ROOT

from experiments import e2, e3, e5
from lab.errors import CassetteMismatchError, CassetteMissingError
from lab.experiment import RunSettings

CASSETTES = ROOT / "cassettes"
SETTINGS = RunSettings(cassette_root=CASSETTES, progress=lambda line: None)


@pytest.fixture(scope="module")
def e3_result():  # type: ignore[no-untyped-def]
    return e3.run(SETTINGS)


@pytest.fixture(scope="module")
def e2_result():  # type: ignore[no-untyped-def]
    return e2.run(SETTINGS)


def _claims(result) -> dict[str, object]:  # type: ignore[no-untyped-def]
    return {c.claim_id: c for c in result.claims}


def test_e3_structural_claims_match(e3_result) -> None:  # type: ignore[no-untyped-def]
    claims = _claims(e3_result)
    for claim_id in ("E3-FIRST", "E3-EVERY", "E3-VISIBLE", "E3-SUMMARY-MSG"):
        assert claims[claim_id].status == "match", claims[claim_id]


def test_e3_rounds_follow_the_trigger_rule(e3_result) -> None:  # type: ignore[no-untyped-def]
    rounds = e3_result.data["rounds"]
    assert [r["round"] for r in rounds if r["compaction"]] == [3, 4, 5]
    for r in rounds[2:]:
        event = r["compaction"]
        assert (event["total_messages"], event["cutoff"], event["keeping"]) == (5, 3, 2)
        assert r["context_at_request"] == 3
        assert r["context_after"][0]["name"] == "__compaction_summary__"
    assert [(r["visible_before"], r["visible_after"]) for r in rounds] == [
        (0, 2),
        (2, 4),
        (4, 4),
        (4, 4),
        (4, 4),
    ]


def test_e3_model_claims_are_judged_from_the_replayed_answers(e3_result) -> None:  # type: ignore[no-untyped-def]
    claims = _claims(e3_result)
    answers = {r["round"]: r["answer"] for r in e3_result.data["rounds"]}
    recalled = all("夜莺" in answers[n] for n in (4, 5))
    assert (claims["E3-RECALL"].status == "match") == recalled
    assert (claims["E3-REVERSE"].status == "match") == ("莺夜" in answers[3])
    lengths = [len(r["compaction"]["summary"]) for r in e3_result.data["rounds"][2:]]
    assert claims["E3-SUMMARY-LEN"].reproduced_value == " / ".join(map(str, lengths))


def test_every_claim_names_the_recorded_model(e3_result, e2_result) -> None:  # type: ignore[no-untyped-def]
    for result in (e3_result, e2_result):
        provenance = result.provenance[0]
        assert provenance["provider"] == "local"
        assert len(provenance["model_sha256"]) == 64
        source = f"{provenance['provider']}/{provenance['model']}"
        assert {c.source for c in result.claims} == {source}


def test_e2_disk_state_claims_match(e2_result) -> None:  # type: ignore[no-untyped-def]
    claims = _claims(e2_result)
    for claim_id in ("E2-S1-NO-MEMORY", "E2-S2-WATERMARK", "E2-S2-DAILY"):
        assert claims[claim_id].status == "match", claims[claim_id]
    steps = e2_result.data["steps"]
    assert steps[1]["files"]["memory/.consolidation_state"]["size"] == 30
    assert steps[1]["consolidation"]["status"] == "written"
    assert steps[0]["maintenance"][0].startswith(
        "No fresh daily entries since 1970-01-01T00:00:00Z"
    )
    assert steps[3]["files"]["MEMORY.md"]["exists"] is steps[3]["memory_rebuilt"]


def test_e2_model_claims_follow_the_answers(e2_result) -> None:  # type: ignore[no-untyped-def]
    claims = _claims(e2_result)
    steps = e2_result.data["steps"]
    both = all(fact in steps[2]["answer"] for fact in ("上海港", "ALPHA"))
    assert (claims["E2-S3-RECALL"].status == "match") == both
    assert claims["E2-S1-TOOLS"].reproduced_value == str(len(steps[0]["tool_calls"]))


def test_a_changed_prompt_fails_replay_with_the_rerecord_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(e3, "SYSTEM_PROMPT", e3.SYSTEM_PROMPT + " (changed)")
    with pytest.raises(CassetteMismatchError) as info:
        e3.run(SETTINGS)
    message = str(info.value)
    assert "rounds.json" in message
    assert "ctxlab record E3 --provider local" in message


def test_a_missing_cassette_says_how_to_record_it(tmp_path: Path) -> None:
    with pytest.raises(CassetteMissingError, match="ctxlab record E3"):
        e3.run(RunSettings(cassette_root=tmp_path, progress=lambda line: None))


def test_e5_cadence_claims_are_computed_from_the_grid() -> None:
    result = e5.run(SETTINGS)
    claims = _claims(result)
    cell = next(c for c in result.data["grid"] if (c["trigger"], c["keep"]) == (13, 2))
    assert claims["E5-CADENCE-13-2"].reproduced_value == (
        f"first at round {cell['first']}, then every {cell['interval']}"
    )
    assert cadence_rounds_agree_with(13, 2, cell)


def cadence_rounds_agree_with(trigger: int, keep: int, cell: dict[str, object]) -> bool:
    rounds = e5.cadence(trigger, keep, rounds=20)
    return rounds[0] == cell["first"] and {b - a for a, b in itertools.pairwise(rounds)} == {
        cell["interval"]
    }
