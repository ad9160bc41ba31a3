"""Answer mutations (:mod:`lab.mutations.answers`): a recorded answer rewritten in a
sealed copy of its cassette, in a temporary folder, never in ``cassettes/``; and, on such a copy,
E3-SUMMARY fed three echoed templates stays `differs` (the wrong answer the lenient judge took)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from support.paths import ROOT

from experiments.mutations.catalogue_judges import ANSWER_MUTATIONS
from harness.compaction.agentscope import DEFAULT_SUMMARY_PROMPT
from lab.errors import ExperimentError
from lab.experiment import RunSettings
from lab.mutations.answers import Rewrite, rewrite_cassette, rewritten
from lab.recorder.format import load_cassette_json
from lab.recorder.seal import check_cassette
from lab.runner import run_one

CASSETTES = ROOT / "cassettes"
MODEL = "qwen2.5-coder-1.5b-instruct-q4_k_m"
ROUNDS = f"E3/local-{MODEL}/rounds"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _answer(path: Path, index: int) -> str:
    content: str = load_cassette_json(path)["interactions"][index]["response"]["body"]["json"][
        "choices"
    ][0]["message"]["content"]
    return content


def test_a_rewritten_copy_is_sealed_and_the_recording_untouched(tmp_path: Path) -> None:
    source = CASSETTES / f"{ROUNDS}.json"
    before = _digest(source)
    copy = rewrite_cassette(source, tmp_path / "rounds.json", [Rewrite(ROUNDS, 7, "夜莺", "画眉")])
    check_cassette(copy)  # replay accepts it: sealed again
    assert _answer(copy, 7) == "画眉" and "夜莺" in _answer(source, 7)
    assert _digest(source) == before


def test_a_rewrite_of_an_answer_that_changed_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ExperimentError, match="no longer holds"):
        rewrite_cassette(
            CASSETTES / f"{ROUNDS}.json", tmp_path / "x.json", [Rewrite(ROUNDS, 7, "雨燕", "x")]
        )


def test_every_answer_mutation_names_the_rows_it_flips() -> None:
    assert len(ANSWER_MUTATIONS) >= 3
    assert all(m.must_flip and not m.gap for m in ANSWER_MUTATIONS)


def _echoed() -> str:
    asked = DEFAULT_SUMMARY_PROMPT.split("<messages>")[0]
    return asked[asked.index("## SESSION INTENT") :].split("\n\nIf the transcript")[0]


def test_e3_summary_stays_differs_on_three_echoed_templates_with_the_code_word() -> None:
    # the three recorded summaries rewritten to the prompt's own section descriptions, plus the
    # code word in one line: the lenient judge counted every section filled (3 of 3, match)
    echo = _echoed() + "\n- 暗号 夜莺"
    patch = rewritten(*(Rewrite(ROUNDS, i, "## SUMMARY", echo) for i in (2, 4, 6)))
    settings = RunSettings(
        cassette_root=CASSETTES,
        progress=lambda _line: None,
        cassette_match="order",
        cassette_set=f"local-{MODEL}",
    )
    with patch():
        claims = {c.claim_id: c for c in run_one("E3", settings).claims}
    assert claims["E3-SUMMARY-KEEPS"].status == "match"  # the copy is what E3 read
    summary = claims["E3-SUMMARY"]
    assert summary.status == "differs" and summary.reproduced_value == "0 of 3", summary.note
