"""E1 end to end: ``ctxlab run E1`` writes honest numbers, recomputed here independently."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from experiments import e1
from harness.messages import validate_pairing
from harness.meter.pricers import estimate_tokens
from lab.claims import CLAIM_COLUMNS
from lab.cli import main
from lab.experiment import dump_json
from lab.views import to_data

E1_CLAIMS = ("E1-NAIVE", "E1-CUTOFF", "E1-KEEP", "E1-AFTER")


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


@pytest.fixture(scope="module")
def e1_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("reports")
    assert main(["run", "E1", "--out", str(out)]) == 0
    return out


def test_writes_e1_json_and_claims_csv(e1_out: Path) -> None:
    assert (e1_out / "E1.json").is_file()
    columns, rows = read_csv(e1_out / "claims.csv")
    assert columns == [
        "experiment",
        "version",
        "claim_id",
        "model",
        "kind",
        "claim",
        "article_value",
        "reproduced_value",
        "status",
        "reason_class",
        "source",
        "article_source",
        "note",
    ]
    assert columns == CLAIM_COLUMNS
    assert {r["experiment"] for r in rows} == {"E1"}
    assert {r["version"] for r in rows} == {str(e1.EXPERIMENT.version)}
    assert (e1_out / "claims.csv").read_bytes().count(b"\r\n") == 0


def test_e1_json_says_which_version_of_the_experiment_measured_it(e1_out: Path) -> None:
    data = json.loads((e1_out / "E1.json").read_text(encoding="utf-8"))
    assert list(data)[:2] == ["experiment", "version"]
    assert data["version"] == e1.EXPERIMENT.version >= 1


def test_the_five_structural_claims_match(e1_out: Path) -> None:
    _, rows = read_csv(e1_out / "claims.csv")
    by_id = {r["claim_id"]: r for r in rows}
    for claim_id in E1_CLAIMS:
        row = by_id[claim_id]
        assert row["status"] == "match", row
        assert row["source"] == "scripted"
        assert row["article_value"] == row["reproduced_value"]
    # Every differing claim says why.
    for row in rows:
        assert row["status"] in ("match", "differs")
        if row["status"] == "differs":
            assert row["note"]


def test_e1_json_agrees_with_an_independent_recomputation(e1_out: Path) -> None:
    data = json.loads((e1_out / "E1.json").read_text(encoding="utf-8"))
    conversation = e1.conversation()
    validate_pairing(conversation)
    keep = e1.CONFIG.keep_messages
    assert keep == 2
    assert e1.CONFIG.trigger_messages == 6
    assert e1.CONFIG.keep_tokens == 0
    assert not e1.CONFIG.flush_before_compact
    assert not e1.CONFIG.offload_before_compact

    total = len(conversation)
    naive = total - keep
    naive_message = conversation[naive]
    assert naive_message.role == "tool"
    call_index = next(
        i
        for i in range(naive - 1, -1, -1)
        if any(c.id == naive_message.tool_call_id for c in conversation[i].tool_calls)
    )
    kept = conversation[call_index:]

    assert data["total_messages"] == total == 9
    assert data["estimated_tokens"] == estimate_tokens(conversation)
    assert data["naive_cutoff"] == naive == 7
    assert data["naive_cutoff_message"] == {"index": naive, "role": "tool", "kind": "tool_result"}
    assert data["cutoff"] == call_index == 6
    assert data["keeping"] == len(kept) == 3
    assert [m["kind"] for m in data["after"]] == ["summary"] + [m.kind for m in kept]
    assert [m["kind"] for m in data["after"]] == ["summary", "tool_use", "tool_result", "assistant"]
    assert [m["text"] for m in data["after"][1:]] == [m.content for m in kept]
    assert data["after"][0]["text"].endswith(e1.SCRIPTED_SUMMARY)
    assert [m["text"] for m in data["before"]] == [m.content for m in conversation]
    assert data["summary_requests"] == 1
    assert data["source"] == "scripted"
    assert data["rerun"]["identical"] is True
    tokens = estimate_tokens(conversation)
    assert data["log_lines"] == [
        f"Compaction triggered: total={total} msgs / {tokens} tokens, "
        f"cutoff={call_index}, keeping={len(kept)} msgs",
        f"Compacted to {len(kept) + 1} messages before reasoning",
    ]
    assert str(naive) in data["reason"]
    assert str(call_index) in data["reason"]


def test_claims_csv_reports_what_e1_json_holds(e1_out: Path) -> None:
    data = json.loads((e1_out / "E1.json").read_text(encoding="utf-8"))
    _, rows = read_csv(e1_out / "claims.csv")
    reproduced = {r["claim_id"]: r["reproduced_value"] for r in rows}
    assert "E1-TOTAL" not in reproduced and "E1-RERUN" not in reproduced  # tests now, below
    naive = data["naive_cutoff_message"]
    assert reproduced["E1-NAIVE"] == f"{naive['index']} ({naive['role']})"
    assert reproduced["E1-CUTOFF"] == str(data["cutoff"])
    assert reproduced["E1-KEEP"] == str(data["keeping"])
    kinds = ", ".join(m["kind"] for m in data["after"])
    assert reproduced["E1-AFTER"] == f"{len(data['after'])}: {kinds}"
    assert reproduced["E1-TOKENS"] == str(data["estimated_tokens"])
    tokens_row = next(r for r in rows if r["claim_id"] == "E1-TOKENS")
    expected_status = (
        "match" if tokens_row["article_value"] == reproduced["E1-TOKENS"] else "differs"
    )
    assert tokens_row["status"] == expected_status


def test_two_runs_are_byte_identical(e1_out: Path, tmp_path: Path) -> None:
    assert main(["run", "E1", "--out", str(tmp_path)]) == 0
    for name in ("E1.json", "claims.csv"):
        assert (tmp_path / name).read_bytes() == (e1_out / name).read_bytes()


def test_measure_twice_in_one_process_is_identical() -> None:
    assert e1.measure() == e1.measure()


# Two statements of the seed that only restate our own input or our own run, so they are tests,
# not claim rows (a row that cannot fail is not a claim).


def test_e1s_input_holds_the_nine_messages_the_seed_names() -> None:
    # the seed: "E1 的输入 9 条"; the trigger's log line (E1-LOG-LINE) is what the harness counts
    assert len(e1.measure().before) == 9


def test_a_rerun_of_e1_gives_the_same_json_bytes() -> None:
    # the seed: "10-31 我用当前构建复跑了一次，JSON 跟 10-30 那份一样"
    first, second = e1.measure(), e1.measure()
    assert dump_json(to_data(first)) == dump_json(to_data(second))
