"""The rules that judge recorded model output (lab/claims/judges.py) and the E2/E3/E4
claims built on them: each rule is shown failing and passing on hand-made inputs."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from support.paths import ROOT

from experiments.e2 import claims as e2_claims
from experiments.e2.page import PAGE as E2_PAGE
from experiments.e3 import claims as e3_claims
from experiments.e3.page import PAGE as E3_PAGE
from experiments.e4 import claims as e4_claims
from experiments.e4.page import PAGE as E4_PAGE
from lab.claims.judges import (
    filled_sections,
    invented_codes,
    recall_route,
    verbatim_copy,
)

REPORTS = ROOT / "reports"
FOUR = ("SESSION INTENT", "SUMMARY", "ARTIFACTS", "NEXT STEPS")
LEDGER = (
    "### memory/2026-10-30.md\n## Memory Flush — 2026-10-30T12:33:04.006000000Z\n"
    "- 我们公司出口固定走上海港\n- 客户代号 ALPHA"
)


def recorded(experiment: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REPORTS / f"{experiment}.json").read_text("utf-8"))
    return data


# --- verbatim copy ------------------------------------------------------------------------------


def test_a_copy_with_the_ledger_scaffolding_is_a_copy() -> None:
    reason = verbatim_copy(LEDGER + "\n", "Current MEMORY.md:\n(empty)\n\n" + LEDGER)
    assert reason is not None and "## Memory Flush — 2026-10-30T12:33:04.006000000Z" in reason


def test_the_bare_lines_of_the_input_are_a_copy() -> None:
    memory = "- 我们公司出口固定走上海港\n- 客户代号 ALPHA\n"
    assert verbatim_copy(memory, LEDGER) is not None


def test_keeping_the_current_memory_is_not_a_copy_of_the_entries() -> None:
    current = "## 业务与物流\n- 出口港口：上海港"
    request = f"Current MEMORY.md:\n{current}\n\nNew daily ledger entries (since x):\n{LEDGER}"
    assert verbatim_copy(current + "\n", request) is None
    assert verbatim_copy("- 客户代号 ALPHA\n", request) is not None


def test_a_rewrite_under_a_new_heading_is_not_a_copy() -> None:
    memory = "## 业务与物流\n- 出口港口：上海港\n- 客户代号：ALPHA\n"
    assert verbatim_copy(memory, LEDGER) is None
    assert verbatim_copy("", LEDGER) is None


# --- sections with content ----------------------------------------------------------------------


def test_headings_with_only_none_are_empty_sections() -> None:
    text = "## SESSION INTENT\nNone\n\n## SUMMARY\n- None\n\n## ARTIFACTS\n(none)\n## NEXT STEPS\n"
    assert filled_sections(text, FOUR) == []


def test_sections_with_content_count_and_missing_ones_do_not() -> None:
    text = "## SESSION INTENT\nremember 夜莺\n## SUMMARY\ncode word 夜莺\n## NEXT STEPS\nNone"
    assert filled_sections(text, FOUR) == ["SESSION INTENT", "SUMMARY"]
    full = "\n".join(f"## {s}\n- fact {n}" for n, s in enumerate(FOUR))
    assert filled_sections(full, FOUR) == list(FOUR)


def test_bold_bullet_labels_are_not_sections() -> None:
    assert filled_sections("- **SUMMARY**: the code word is 夜莺", FOUR) == []


# --- recall route and invented codes ------------------------------------------------------------


@pytest.mark.parametrize(
    ("summaries", "tail", "route"),
    [
        (["the code word is 夜莺"], ["收到"], "summary"),
        (["None"], ["暗号是夜莺"], "kept tail"),
        (["夜莺"], ["夜莺"], "summary and kept tail"),
        (["None"], ["收到"], "neither"),
    ],
)
def test_recall_route(summaries: list[str], tail: list[str], route: str) -> None:
    assert recall_route("夜莺", summaries, tail) == route


def test_invented_codes() -> None:
    said = "我们公司出口固定走上海港，客户代号 ALPHA"
    assert invented_codes("- 客户代号是1234567890", said) == ["1234567890"]
    assert invented_codes("- 客户代号 ALPHA\n- 客户代号：ALPHA", said) == []


# --- the claims on the shipped recordings, and on edited copies of them --------------------------


JUDGES: dict[str, tuple[Callable[[dict[str, Any]], Any], Callable[[Any], tuple[Any, ...]]]] = {
    "E2": (E2_PAGE.read, e2_claims.claims),
    "E3": (E3_PAGE.read, e3_claims.claims),
    "E4": (E4_PAGE.read, e4_claims.claims),
}


def judged(experiment: str, data: dict[str, Any]) -> dict[str, Any]:
    """The claims ``experiment`` makes of its JSON ``data`` (model ``local/m``), by id."""
    view, claims = JUDGES[experiment]
    return {c.claim_id: c for c in claims(view(data))}


def test_e2_s2_memory_is_differs_on_the_shipped_recording_and_says_why() -> None:
    data = recorded("E2")
    claim = judged("E2", data)["E2-S2-MEMORY"]
    assert claim.status == "differs"
    assert "verbatim copy" in claim.note and "## Memory Flush" in claim.note


def test_e2_s2_memory_matches_a_rewrite() -> None:
    data = copy.deepcopy(recorded("E2"))
    data["steps"][1]["memory_text"] = "## 业务与物流\n- 出口港口：上海港\n- 客户代号：ALPHA\n"
    claim = judged("E2", data)["E2-S2-MEMORY"]
    assert claim.status == "match"
    data["steps"][1]["memory_text"] = "## 业务与物流\n- 出口港口：上海港\n"
    assert judged("E2", data)["E2-S2-MEMORY"].status == "differs"


def test_e2_recall_note_says_the_model_had_the_facts_and_answered_nothing() -> None:
    claim = judged("E2", recorded("E2"))["E2-S3-RECALL"]
    assert claim.status == "differs"
    assert "MEMORY.md injected with both facts" in claim.note
    assert "memory_save saved both" in claim.note and "empty completion" in claim.note


def test_e2_sizes_note_names_the_header_bytes() -> None:
    claim = judged("E2", recorded("E2"))["E2-SIZES"]
    assert "adds 10 B to the daily file and 10 B to MEMORY.md" in claim.note


def test_e3_summary_is_differs_on_the_shipped_recording_and_matches_filled_summaries() -> None:
    data = recorded("E3")
    claims = judged("E3", data)
    assert claims["E3-SUMMARY"].status == "differs"
    assert "3 of 3 summaries carry the four headings" in claims["E3-SUMMARY"].note
    filled = copy.deepcopy(data)
    for r in filled["rounds"]:
        if r["compaction"]:
            r["compaction"]["summary"] = "\n".join(f"## {s}\n- 暗号 夜莺" for s in FOUR)
    assert judged("E3", filled)["E3-SUMMARY"].status == "match"


def test_e3_recall_route_names_the_kept_tail_and_matches_a_summary_route() -> None:
    data = recorded("E3")
    claims = judged("E3", data)
    assert claims["E3-RECALL"].status == "match"
    assert claims["E3-RECALL-ROUTE"].reproduced_value == "round 4: kept tail; round 5: kept tail"
    assert claims["E3-RECALL-ROUTE"].status == "differs"
    via_summary = copy.deepcopy(data)
    for n in (4, 5):
        context = via_summary["rounds"][n - 1]["context_after"]
        context[0]["text"] += "\n## SUMMARY\n暗号 夜莺"
        for message in context[1:-1]:
            message["text"] = message["text"].replace("夜莺", "它")
    route = judged("E3", via_summary)["E3-RECALL-ROUTE"]
    assert route.reproduced_value == "round 4: summary; round 5: summary"
    assert route.status == "match"


def test_e4_dsh_summary_sections_differ_without_headings_and_match_with_them() -> None:
    data = recorded("E4")
    claims = judged("E4", data)
    assert claims["DSH-SUMMARY-SECTIONS"].status == "differs"
    assert "bold bullet labels" in claims["DSH-SUMMARY-SECTIONS"].note
    sectioned = copy.deepcopy(data)
    sectioned["engines"][1]["summary"] = "\n".join(
        f"## {s}\n- SO-2026-0417" for s in e4_claims.DSH_SECTIONS
    )
    assert judged("E4", sectioned)["DSH-SUMMARY-SECTIONS"].status == "match"


def test_e2_step4_save_invented_code_and_searches_can_each_pass_and_fail() -> None:
    data = recorded("E2")
    shipped = judged("E2", data)
    assert shipped["E2-S4-SAVE"].status == "differs"
    assert "it did in step(s) 3" in shipped["E2-S4-SAVE"].note
    # the flushed 1234567890 came from the step-4 answer: in the conversation, not invented
    assert shipped["E2-FLUSH-INVENTS"].status == "differs"
    assert "1234567890" in shipped["E2-FLUSH-INVENTS"].note
    # Source lines in MEMORY.md and the daily file, then an empty answer: a plausible wrong one
    assert shipped["E2-S3-SEARCHES"].status == "differs"
    invented = copy.deepcopy(data)
    for step in invented["steps"]:
        step["answer"] = step["answer"].replace("1234567890", "（略）")
    assert judged("E2", invented)["E2-FLUSH-INVENTS"].status == "match"
    edited = copy.deepcopy(data)
    edited["steps"][3]["daily_added"] = (
        "\n## Memory Save — 2026-10-30T12:33:04.030000000Z\n- 客户代号 ALPHA\n"
    )
    edited["final_daily_text"] = edited["final_daily_text"].replace("1234567890", " ALPHA")
    edited["steps"][2]["sources"] = ["memory/2026-10-30.md"]
    claims = judged("E2", edited)
    assert claims["E2-S4-SAVE"].status == "match"
    assert claims["E2-FLUSH-INVENTS"].status == "differs"
    assert claims["E2-S3-SEARCHES"].status == "differs"
    edited["steps"][3]["watermark"] = "2026-10-30T12:33:05.000000000Z"
    assert judged("E2", edited)["E2-S4-SAVE"].status == "differs"


def test_e2_header_row_matches_the_seed_format_only() -> None:
    data = copy.deepcopy(recorded("E2"))
    assert judged("E2", data)["E2-FLUSH-HEADER"].status == "differs"
    data["final_daily_text"] = "\n## Memory Flush — 2026-10-30T12:33:04Z\n- 上海港 ALPHA\n"
    assert judged("E2", data)["E2-FLUSH-HEADER"].status == "match"


def test_e4_summary_event_row_fails_without_the_provider() -> None:
    data = copy.deepcopy(recorded("E4"))
    assert judged("E4", data)["DSH-SUMMARY-EVENT"].status == "match"
    data["engines"][1]["summary_event"]["fields"].remove("provider")
    claim = judged("E4", data)["DSH-SUMMARY-EVENT"]
    assert claim.status == "differs" and "lacks provider" in claim.note
