"""The strict judges, each fed the plausible wrong answer it must reject: none may read `match`.

The rules (:mod:`lab.claims.answer_judges`, the echo check of
:func:`lab.claims.judges.filled_sections`) on hand-made text, then the claims built
on them on edited copies of the shipped recordings' JSON (``reports/``), as
``tests/experiments/test_judges.py`` does for the older rules.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from support.paths import ROOT

from experiments.e2 import claims as e2_claims
from experiments.e2.page import PAGE as E2_PAGE
from experiments.e3 import claims as e3_claims
from experiments.e3.page import PAGE as E3_PAGE
from experiments.e3.summary_rules import SECTIONS
from experiments.e4 import claims as e4_claims
from experiments.e4.page import PAGE as E4_PAGE
from harness.compaction.agentscope import DEFAULT_SUMMARY_PROMPT
from lab.claims.answer_judges import carries_previous, copied_messages
from lab.claims.judges import echoes, filled_sections

REPORTS = ROOT / "reports"
INSTRUCTION = "不要调用任何工具，只用一句话回答并确认：我们公司出口固定走上海港，客户代号 ALPHA"
ASKED = DEFAULT_SUMMARY_PROMPT.split("<messages>")[0].splitlines()
ECHOED = "\n".join(
    f"## {s}\n{line}"
    for s, line in zip(
        SECTIONS,
        (
            "The user's primary goal.",
            "重要 context, decisions with their reasons, and options that were rejected. Keep "
            "exact names, codes, numbers, paths and commands.",
            "Files or resources created, modified or accessed, with their paths and what changed.",
            "What remains to be done.",
        ),
        strict=True,
    )
)


def recorded(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REPORTS / f"{name}.json").read_text("utf-8"))
    return data


def _claims(page: Any, claims: Any, data: dict[str, Any]) -> dict[str, Any]:
    return {c.claim_id: c for c in claims(page.read(data))}


# --- the rules -----------------------------------------------------------------------------------


def test_an_echoed_section_description_is_not_content() -> None:
    assert echoes("- The user's primary goal.", ASKED)
    assert echoes("重要 context, decisions with their reasons, and options that were rejected. "
                  "Keep exact names, codes, numbers, paths and commands.", ASKED)  # fmt: skip
    assert not echoes("- 客户代号 ALPHA，出口走上海港", ASKED)
    assert filled_sections(ECHOED, SECTIONS) == list(SECTIONS)  # the lenient reading
    assert filled_sections(ECHOED, SECTIONS, ASKED) == []
    real = ECHOED.replace("What remains to be done.", "- 再答一次暗号 夜莺")
    assert filled_sections(real, SECTIONS, ASKED) == ["NEXT STEPS"]


def test_a_flush_that_copies_the_users_message_is_a_copy() -> None:
    assert copied_messages(f"- {INSTRUCTION}", [INSTRUCTION]) == [INSTRUCTION]
    assert copied_messages("- 我们公司出口固定走上海港\n- 客户代号 ALPHA", [INSTRUCTION]) == []


def test_a_summary_request_without_the_old_summary_dropped_it() -> None:
    previous = "Here is a summary of the conversation to date:\n\n## SUMMARY\n暗号 夜莺"
    assert carries_previous(f"<messages>\nHuman: {previous}\n\nAI: ok\n</messages>", previous)
    assert not carries_previous("<messages>\nAI: 暗号：夜莺。\n</messages>", previous)
    assert not carries_previous("anything", "")


# --- the claims, fed the wrong answer ------------------------------------------------------------


def test_e3_summary_rejects_three_echoed_templates() -> None:
    data = copy.deepcopy(recorded("E3"))
    for r in data["rounds"]:
        if r["compaction"]:
            r["compaction"]["summary"] = ECHOED
    claim = _claims(E3_PAGE, e3_claims.claims, data)["E3-SUMMARY"]
    assert claim.status == "differs" and claim.reproduced_value == "0 of 3"
    assert "echo the prompt's own description" in claim.note


def test_e3_summary_merged_rejects_a_dropped_old_summary() -> None:
    data = copy.deepcopy(recorded("E3"))
    assert _claims(E3_PAGE, e3_claims.claims, data)["E3-SUMMARY-MERGED"].status == "match"
    # the summariser was sent the prefix without the old summary: one opening, nothing merged
    data["summary_requests"] = [
        text.replace("Here is a summary of the conversation to date:", "") for text in
        data["summary_requests"]
    ]  # fmt: skip
    for r in data["rounds"]:
        for m in r["context_after"]:
            if m["kind"] == "summary":
                data["summary_requests"] = [
                    t.replace(m["text"].split("\n\n", 1)[-1], "") for t in data["summary_requests"]
                ]
    claim = _claims(E3_PAGE, e3_claims.claims, data)["E3-SUMMARY-MERGED"]
    assert claim.status == "differs" and "previous summary carried: no" in claim.reproduced_value


def test_e2_s1_flush_rejects_a_copied_instruction() -> None:
    data = copy.deepcopy(recorded("E2"))
    assert _claims(E2_PAGE, e2_claims.claims, data)["E2-S1-FLUSH"].status == "match"
    head, _, rest = data["final_daily_text"].partition("## Memory Flush")
    header, _, _body = rest.partition("\n")
    data["final_daily_text"] = f"{head}## Memory Flush{header}\n- {INSTRUCTION}\n"
    claim = _claims(E2_PAGE, e2_claims.claims, data)["E2-S1-FLUSH"]
    assert claim.status == "differs" and "message word for word" in claim.note


def test_e2_s3_searches_rejects_mixed_sources_and_an_empty_answer() -> None:
    data = copy.deepcopy(recorded("E2"))
    step = data["steps"][2]
    step["sources"], step["answer"] = ["MEMORY.md"], "上海港，ALPHA"
    assert _claims(E2_PAGE, e2_claims.claims, data)["E2-S3-SEARCHES"].status == "match"
    for sources, answer in ((["MEMORY.md", "memory/2026-10-30.md"], "上海港，ALPHA"),
                            (["MEMORY.md"], ""), ([], "上海港，ALPHA")):  # fmt: skip
        step["sources"], step["answer"] = sources, answer
        assert _claims(E2_PAGE, e2_claims.claims, data)["E2-S3-SEARCHES"].status == "differs"


def test_dsh_replay_rejects_a_replay_that_is_not_the_recording() -> None:
    data = copy.deepcopy(recorded("E4"))
    dsh = next(e for e in data["engines"] if e["engine"] == "dsh")
    assert _claims(E4_PAGE, e4_claims.claims, data)["DSH-REPLAY"].status == "match"
    dsh["replay_as_recorded"] = False  # live and replay still agree: the fold broke both alike
    claim = _claims(E4_PAGE, e4_claims.claims, data)["DSH-REPLAY"]
    assert claim.status == "differs" and "not as recorded" in claim.reproduced_value
