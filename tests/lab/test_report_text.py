"""What ``index.html`` says: the two sources, the seeds' model and the recorded sets, the
claims' counts, an English gloss beside every Chinese text, and the fonts."""

from __future__ import annotations

import csv
import re
from html import unescape
from pathlib import Path

import pytest
from support.paths import ROOT
from support.report_inputs import built_copy

from lab.report.glossary import (
    SOURCES,
    chinese_runs,
    gloss_html,
    gloss_text,
    glosses,
    unglossed,
)
from lab.report.markdown import escape_html
from lab.report.plots import PLOT_FONT
from lab.seeds import seeds_folder

CJK = re.compile(r"[\u3400-\u9fff]")
GLOSSED = re.compile(r'<(span|cite) lang="zh">[^<]*</\1> <span class="gloss">\(“[^<]*”\)</span>')


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_copy(ROOT / "reports", tmp_path_factory.mktemp("r") / "reports")


def page(folder: Path) -> str:
    return (folder / "index.html").read_text(encoding="utf-8")


def bare_chinese(html: str) -> list[str]:
    """Chinese text left in the page once every glossed run is taken out."""
    return CJK.findall(GLOSSED.sub("", html))


def test_every_chinese_text_has_an_english_gloss(built: Path) -> None:
    html = page(built)
    assert CJK.search(html)  # the claims do quote Chinese
    assert bare_chinese(html) == []


def test_every_chinese_text_in_claims_md_has_a_gloss(built: Path) -> None:
    # claims.md keeps each quote whole; its tables' English column glosses what they quote.
    for path in [built / "claims.md"]:
        text = path.read_text(encoding="utf-8")
        assert "| English |" in text
        for line in text.splitlines():
            for run in chinese_runs(line):
                english = glosses().get(run.strip("“”‘’"))
                assert english is not None, f"{path.name}: no gloss for {run!r}"
                assert escape_html(english) in line, f"{path.name}: {run!r} shown without its gloss"
            assert not re.search(r"[\u4e00-\u9fff] \(“", line), f"a gloss inside a quote: {line}"


def test_every_chinese_text_in_the_experiment_pages_is_glossed(built: Path) -> None:
    # Tables get an English column; a verbatim block (a summary) is followed by a gloss line.
    pages = sorted(built.glob("E*.md"))
    assert {p.name for p in pages} >= {"E1.md", "E2.md", "E3.md", "E4.md"}
    for path in pages:
        text = path.read_text(encoding="utf-8")
        for run in chinese_runs(re.sub(r" \(“[^\n]*?”\)", "", text)):  # glosses taken out
            english = glosses().get(run.strip("“”‘’"))
            assert english is not None, f"{path.name}: no gloss for {run!r}"
            assert escape_html(english) in text, f"{path.name}: {run!r} is shown without its gloss"


def test_a_chinese_text_without_a_gloss_is_caught() -> None:
    answer = "模型的新回答"  # a re-recorded answer nobody glossed yet
    assert unglossed(f"answer: '{answer}'") == [answer]
    assert bare_chinese(gloss_html(f"answer: '{answer}'")) != []
    assert bare_chinese(gloss_html("the code word 夜莺.")) == []
    assert gloss_text("say 夜莺.") == "say 夜莺 (“nightingale”)."


def test_the_two_sources_are_named_with_their_titles(built: Path) -> None:
    html = page(built)
    for role, title, english in SOURCES:
        assert role in html and f'<cite lang="zh">{title}</cite>' in html and english in html
    seeds = seeds_folder()
    if seeds is not None:  # the titles are the seeds' own first lines
        firsts = {p.read_text(encoding="utf-8").splitlines()[0] for p in seeds.glob("0*.txt")}
        assert {title for _, title, _ in SOURCES} == firsts


def _claim_statuses(folder: Path) -> dict[str, int]:
    """match / differs / mixed over the claims of ``claims.csv`` (one per experiment and claim
    id, whatever number of models measured it), counted here independently of the report."""
    counts = {"match": 0, "differs": 0, "mixed": 0}
    for seen in _statuses_by_claim(folder).values():
        counts[next(iter(seen)) if len(seen) == 1 else "mixed"] += 1
    return counts


def _statuses_by_claim(folder: Path) -> dict[tuple[str, str], set[str]]:
    """Each claim's statuses over its models."""
    with (folder / "claims.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    statuses: dict[tuple[str, str], set[str]] = {}
    for row in rows:
        statuses.setdefault((row["experiment"], row["claim_id"]), set()).add(row["status"])
    return statuses


def _headline(html: str) -> str:
    found = re.search(r'<p class="headline">(.*?)</p>', html, re.DOTALL)
    assert found, "no headline"
    return re.sub(r"<[^>]+>", "", found.group(1))


def test_the_headline_counts_claims_in_one_unit(built: Path, tmp_path: Path) -> None:
    counts = _claim_statuses(built)
    total = sum(counts.values())
    line = _headline(page(built))
    assert line.startswith(
        f"{total} claims: {counts['match']} match, {counts['differs']} differ, "
        f"{counts['mixed']} mixed"
    ), line
    # One more differing row changes the counts: a claim that matched for both models is mixed.
    folder = tmp_path / "changed"
    folder.mkdir()
    text = (built / "claims.csv").read_text(encoding="utf-8")
    statuses = _statuses_by_claim(built)
    both = {claim for (_, claim), seen in statuses.items() if seen == {"match"}}
    claim_column = text.splitlines()[0].split(",").index("claim_id")
    row = next(
        r
        for r in text.splitlines()
        if ",match,,local/" in r and r.startswith("E2,") and r.split(",")[claim_column] in both
    )
    (folder / "claims.csv").write_text(
        text.replace(row, row.replace(",match,,local/", ",differs,model,local/"), 1),
        encoding="utf-8",
    )
    for json_file in built.glob("*.json"):
        (folder / json_file.name).write_bytes(json_file.read_bytes())
    built_copy(folder, tmp_path / "built")
    assert _headline(page(tmp_path / "built")).startswith(
        f"{total} claims: {counts['match'] - 1} match, {counts['differs']} differ, "
        f"{counts['mixed'] + 1} mixed"
    )


def test_the_intro_names_the_seeds_model_and_each_recorded_set(built: Path) -> None:
    html = page(built)
    intro = unescape(html[html.index("<header>") : html.index("</header>")])
    assert "The seeds' agents ran on deepseek-flash (DeepSeek)." in intro
    with (built / "claims.csv").open(encoding="utf-8", newline="") as handle:
        sets = {(r["source"].split("/")[0], r["model"]) for r in csv.DictReader(handle)}
    recorded = {(provider, model) for provider, model in sets if model != "scripted"}
    assert f"replay {len(recorded)} sets of cassettes" in intro
    for provider, model in recorded:
        assert f"from {provider} (" in intro and model in intro


def test_fonts_are_declared(built: Path) -> None:
    html = page(built)
    assert '"Noto Sans CJK SC"' in html.split("</style>")[0]
    assert f"the plots are drawn in {PLOT_FONT}" in html


def _sections(html: str) -> dict[str, str]:
    found = re.findall(r'<section id="([^"]+)"(.*?)</section>', html, re.DOTALL)
    return {name: body for name, body in found}


def test_notes_sit_behind_the_evidence_link_not_on_the_page(built: Path) -> None:
    sections = _sections(page(built))
    assert {"exp-E2", "exp-E3", "claims"} <= set(sections)
    for name, body in sections.items():
        for phrase in ("model output as recorded", "judged by judge", "judged strictly by"):
            assert body.count(phrase) == 0, f"{name} says {phrase!r} {body.count(phrase)} times"
    # The claim's evidence page has its note whole and the rule its judge names.
    evidence = (built / "evidence" / "E3-REVERSE.html").read_text(encoding="utf-8")
    assert "did not reverse the word" in evidence and "<code>e3-rules</code>" in evidence
