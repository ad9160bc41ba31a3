"""What ``index.html`` says: the two sources, the recording model and its count of differing
claims, an English gloss beside every Chinese text, and the fonts."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from report_inputs import built_copy

from experiments.report.glossary import (
    GLOSSES,
    SOURCES,
    chinese_runs,
    gloss_html,
    gloss_text,
    unglossed,
)
from experiments.report.html import STRUCTURAL_NOTE
from experiments.report.plots import PLOT_FONT

ROOT = Path(__file__).resolve().parents[1]
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
                english = GLOSSES.get(run.strip("“”‘’"))
                assert english is not None, f"{path.name}: no gloss for {run!r}"
                assert english in line, f"{path.name}: {run!r} shown without its gloss"
            assert not re.search(r"[\u4e00-\u9fff] \(“", line), f"a gloss inside a quote: {line}"


def test_every_chinese_text_in_the_experiment_pages_is_glossed(built: Path) -> None:
    # Tables get an English column; a verbatim block (a summary) is followed by a gloss line.
    pages = sorted(built.glob("E*.md"))
    assert {p.name for p in pages} >= {"E1.md", "E2.md", "E3.md", "E4.md"}
    for path in pages:
        text = path.read_text(encoding="utf-8")
        for run in chinese_runs(re.sub(r" \(“[^\n]*?”\)", "", text)):  # glosses taken out
            english = GLOSSES.get(run.strip("“”‘’"))
            assert english is not None, f"{path.name}: no gloss for {run!r}"
            assert english in text, f"{path.name}: {run!r} is shown without its gloss"


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
    seeds = Path("/work/shared/seeds")
    if seeds.is_dir():  # the titles are the seeds' own first lines
        firsts = {p.read_text(encoding="utf-8").splitlines()[0] for p in seeds.glob("0*.txt")}
        assert {title for _, title, _ in SOURCES} == firsts


def _model_dependent_differing(folder: Path) -> tuple[int, int]:
    with (folder / "claims.csv").open(encoding="utf-8", newline="") as handle:
        rows = [
            r
            for r in csv.DictReader(handle)
            if r["source"] != "scripted" and STRUCTURAL_NOTE not in r["note"]
        ]
    return sum(r["status"] != "match" for r in rows), len(rows)


def test_the_model_paragraph_counts_the_differing_claims(built: Path, tmp_path: Path) -> None:
    differed, total = _model_dependent_differing(built)
    html = page(built)
    with (built / "claims.csv").open(encoding="utf-8", newline="") as handle:
        models = {r["model"] for r in csv.DictReader(handle)} - {"scripted"}
    named = "a 1.5B local model" if len(models) == 1 else f"{len(models)} local models"
    assert named in html and "deepseek-flash" in html
    assert f"{differed} of the {total} model-dependent claims differ" in html
    # One more differing claim changes the count.
    folder = tmp_path / "changed"
    folder.mkdir()
    text = (built / "claims.csv").read_text(encoding="utf-8")
    (folder / "claims.csv").write_text(
        text.replace(",match,local/", ",differs,local/", 1), encoding="utf-8"
    )
    for json_file in built.glob("E*.json"):
        (folder / json_file.name).write_bytes(json_file.read_bytes())
    built_copy(folder, tmp_path / "built")
    assert f"{differed + 1} of the {total} model-dependent" in page(tmp_path / "built")


def test_fonts_are_declared(built: Path) -> None:
    html = page(built)
    assert '"Noto Sans CJK SC"' in html.split("</style>")[0]
    assert f"the plots are drawn in {PLOT_FONT}" in html
