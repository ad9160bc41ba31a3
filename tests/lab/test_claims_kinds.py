"""Claim kinds and seed citations: the shipped table, the rules a Claim enforces, old tables,
and the deviations from the seeds ctxlab settled on (offload path, summary provider)."""

from __future__ import annotations

import csv
import re
from dataclasses import replace
from pathlib import Path

import pytest
from support.paths import ROOT

from harness.client import ChatClient
from harness.compaction.dsh import DshEngine
from harness.messages import Message
from harness.model import ChatRequest, provider_of
from harness.store.eventlog import EventLog
from harness.testing import FunctionModel
from lab.claims import AS_SEED, DSH_SEED, KINDS, Claim, cite, read_claims
from lab.claims.specs import ClaimSpec, Verdict, evaluate
from lab.recorder.textcalls import TextToolCalls
from lab.seed_sections import SECTIONS
from lab.seeds import (
    SEED_TITLES,
    parse_citation,
    section_at,
    sections_of,
    seeds_folder,
    where_seeds_are_looked_for,
)

SEEDS = seeds_folder()


def shipped() -> list[dict[str, str]]:
    with (ROOT / "reports/claims.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_shipped_table_has_kinds_and_at_least_64_rows() -> None:
    rows = shipped()
    assert len(rows) >= 64
    assert {"claim_id", "kind", "status", "article_source"} <= set(rows[0])
    assert {r["kind"] for r in rows} == set(KINDS)
    assert len({(r["claim_id"], r["model"]) for r in rows}) == len(rows)  # one per model


def test_article_rows_cite_a_seed_and_ctxlab_rows_carry_no_article_value() -> None:
    for row in shipped():
        if row["kind"] == "ctxlab":
            assert row["article_value"] == "", row["claim_id"]
            assert "own check" in row["note"], row["claim_id"]
            continue
        cited = parse_citation(row["article_source"])
        assert cited is not None and cited.seed in (AS_SEED, DSH_SEED), row["claim_id"]
        assert len(cited.quote) > 2, row["claim_id"]


def test_citations_name_the_seed_by_title_and_section_never_by_its_file() -> None:
    for row in shipped():
        source = row["article_source"]
        if not source:
            continue
        assert not any(seed in source for seed in (AS_SEED, DSH_SEED)), row["claim_id"]
        title = SEED_TITLES[parse_citation(source).seed]  # type: ignore[union-attr]
        assert re.match(rf"{re.escape(title)}, §(\d+(\.\d+)?|opening): \"", source), source


needs_seeds = pytest.mark.skipif(
    SEEDS is None,
    reason=f"quote checks not run: no seed texts at {where_seeds_are_looked_for()}",
)


@needs_seeds
def test_every_quote_occurs_in_its_seed_in_the_section_cited() -> None:
    assert SEEDS is not None
    texts = {name: (SEEDS / name).read_text(encoding="utf-8") for name in (AS_SEED, DSH_SEED)}
    wrong = []
    for row in shipped():
        cited = parse_citation(row["article_source"])
        if cited is None:
            continue
        if cited.section not in sections_of(cited.seed, texts[cited.seed], cited.quote):
            wrong.append((row["claim_id"], cited.section, cited.quote))
    assert wrong == [], "run `python -m lab.seeds`, then `ctxlab run`"


@needs_seeds
def test_the_section_finder_reads_both_seeds_headings() -> None:
    assert SEEDS is not None
    lesson = (SEEDS / AS_SEED).read_text(encoding="utf-8")
    reading = (SEEDS / DSH_SEED).read_text(encoding="utf-8")
    assert section_at(AS_SEED, lesson, lesson.index("3.6 E1：") + 10) == "3.6"
    assert section_at(AS_SEED, lesson, 10) == "opening"
    assert section_at(DSH_SEED, reading, reading.index("二、") + 5) == "2"
    assert section_at(DSH_SEED, reading, len(reading)) == "7"


def test_seeds_are_found_by_variable_or_beside_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    beside = tmp_path / "shared" / "seeds"
    beside.mkdir(parents=True)
    for name in (AS_SEED, DSH_SEED):
        (beside / name).write_text("x", encoding="utf-8")
    monkeypatch.delenv("CTXLAB_SEEDS", raising=False)
    assert seeds_folder(tmp_path / "ctxlab") == beside
    assert seeds_folder(tmp_path / "elsewhere" / "ctxlab") is None
    monkeypatch.setenv("CTXLAB_SEEDS", str(beside))
    assert seeds_folder(tmp_path / "elsewhere" / "ctxlab") == beside
    monkeypatch.setenv("CTXLAB_SEEDS", str(tmp_path / "none"))
    assert seeds_folder(tmp_path / "ctxlab") is None
    assert where_seeds_are_looked_for() == f"$CTXLAB_SEEDS = {tmp_path / 'none'}"


def test_a_claim_refuses_unknown_kinds_ctxlab_values_and_uncited_sources() -> None:
    base = ("E9", "E9-X", "claim", "1", "1", "match", "scripted", "")
    with pytest.raises(ValueError, match="kind"):
        Claim(*base, kind="paper")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no article value"):
        Claim(*base, kind="ctxlab")
    with pytest.raises(ValueError, match="cite a seed"):
        Claim(*base, article_source="a blog post")
    assert Claim(*base, article_source=cite(AS_SEED, "E1 的输入 9 条")).kind == "article"


def test_cite_needs_a_known_seed_and_a_quote() -> None:
    assert cite(DSH_SEED, "这条 start 就是锁") == (
        f"DeepSeek-Harness source reading 13, §{SECTIONS[DSH_SEED]['这条 start 就是锁']}: "
        '"这条 start 就是锁"'
    )
    assert cite(AS_SEED, "a quote nobody sectioned yet") == (
        'AgentScope Java v2 lesson 10: "a quote nobody sectioned yet"'
    )
    with pytest.raises(ValueError, match="unknown seed"):
        cite("notes.txt", "x")
    with pytest.raises(ValueError, match="quote"):
        cite(AS_SEED, " ")


def test_ours_puts_the_expectation_in_the_note_and_judges_it() -> None:
    spec: ClaimSpec[str] = ClaimSpec(
        "E9-OURS", "ours", Verdict, kind="ctxlab", expected="4 of 4", note="by rule"
    )
    (held,) = evaluate("E9", [spec], "4 of 4", "scripted")
    assert (held.kind, held.article_value, held.status) == ("ctxlab", "", "match")
    assert "expected 4 of 4; by rule" in held.note
    (failed,) = evaluate("E9", [replace(spec, note="")], "2 of 4", "scripted")
    assert failed.status == "differs" and "measured 2 of 4" in failed.note


def test_a_check_without_an_expected_value_is_judged_by_its_rule() -> None:
    spec: ClaimSpec[bool] = ClaimSpec(
        "E9-RULE",
        "a rule",
        lambda ok: Verdict("yes" if ok else "no", ok),
        kind="ctxlab",
        note="judged by the rule",
        differs_note="the rule failed",
    )
    (held,) = evaluate("E9", [spec], True, "scripted")
    (failed,) = evaluate("E9", [spec], False, "scripted")
    assert (held.status, held.note) == ("match", "judged by the rule")
    assert (failed.status, failed.note) == ("differs", "the rule failed; judged by the rule")


def test_a_measure_that_finds_nothing_leaves_the_claim_out() -> None:
    spec: ClaimSpec[str] = ClaimSpec("E9-NONE", "none", lambda _: None, kind="ctxlab")
    assert evaluate("E9", [spec], "x", "scripted", model="m") == ()


def test_a_table_written_before_the_kind_column_still_reads(tmp_path: Path) -> None:
    old = tmp_path / "claims.csv"
    old.write_text(
        "experiment,claim_id,claim,article_value,reproduced_value,status,source,note\n"
        "E1,E1-TOTAL,nine,9,9,match,scripted,\n",
        encoding="utf-8",
    )
    frame = read_claims(old)
    assert list(frame["kind"]) == [""] and list(frame["claim_id"]) == ["E1-TOTAL"]


# --- compaction/summary names the provider ------------------------------------------------------


def checkpoint(request: ChatRequest) -> str:
    return "## Primary Request and Intent\n- ship"


def test_the_dsh_summary_event_names_the_provider(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "s.jsonl")
    for n in range(3):
        log.append_message(Message.user(f"question {n} " + "x" * 400))
        log.append_message(Message.assistant(f"answer {n} " + "y" * 400))
    header = ChatRequest(messages=(Message.system("system"),))
    DshEngine(log, TextToolCalls(FunctionModel(checkpoint))).compact_now(header)
    (summary,) = [e for e in log.events if e.type == "compaction/summary"]
    assert summary.data["provider"] == "scripted"
    assert EventLog.replay(log.path).events[summary.seq].data["provider"] == "scripted"


def test_provider_of_a_client_is_its_host_and_unknown_without_one() -> None:
    client = ChatClient("m", base_url="http://127.0.0.1:8080/v1", api_key="k")
    assert provider_of(client) == "127.0.0.1:8080"
    assert provider_of(object()) == "unknown"
