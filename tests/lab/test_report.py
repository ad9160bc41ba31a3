"""The reports: claims.md, experiment pages, plots and index.html, built from a reports folder.

Inputs are the real E1 (run here, scripted) plus SYNTHETIC E3 and E2 JSON files shaped like the
real ones (E3 after ``experiments/e3/__init__.py``; E2 after the shape agreed for it). The synthetic
fixtures exist only to exercise the rendering: their numbers are made up, not measured.
"""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import matplotlib.image
import pandas as pd
import pytest
from support.plot_memo import MEMO
from support.report_plots import plot_size, png_of

from experiments import e1
from experiments.e2.view import E2View, FileState, StepRow
from experiments.e3.view import (
    CompactionRow,
    ContextMessage,
    E3Config,
    E3View,
    RoundRow,
    SummaryMessage,
    UsageRecord,
)
from lab.claims import Claim, claims_frame, read_claims, write_claims
from lab.experiment import RunSettings, write_json
from lab.recorder.provenance import Provenance
from lab.report import build_reports
from lab.report.markdown import fence, markdown_table
from lab.views import to_data

SYNTHETIC_SHA = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
VOID_TAGS = {"meta", "img", "br", "link", "input", "hr", "source", "wbr"}


SYNTHETIC_PROVENANCE = Provenance(
    provider="local",
    model="synthetic-model.gguf",
    base_url="http://localhost/v1",
    params={},
    recorded_at="2026-01-02T03:04:05Z",
    ctxlab_version="0.1.0",
    requests=8,
    server="llama.cpp",
    model_sha256=SYNTHETIC_SHA,
)


def _synthetic_round(number: int, user: str, before: int, after: int) -> RoundRow:
    summary = f"## SESSION INTENT\n记住暗号。\n\n## SUMMARY\n第 {number} 轮 | 暗号 夜莺\n"
    compaction = None
    if number >= 3:
        compaction = CompactionRow(
            trigger="messages",
            total_messages=5,
            total_tokens=120,
            naive_cutoff=3,
            cutoff=3,
            cutoff_reason="count mode",
            keeping=2,
            messages_after=3,
            tokens_after=80,
            summary=summary,
            summary_chars=len(summary),
            summary_failed=False,
            log_lines=("Compaction triggered: total=5 msgs",),
        )
    return RoundRow(
        round=number,
        user=user,
        answer=f"暗号是夜莺（synthetic answer {number}）",
        visible_before=before,
        visible_after=after,
        context_at_request=before + 1,
        estimated_tokens_after=40 * number,
        usage=UsageRecord(50, 8, None),
        compaction=compaction,
        context_after=(ContextMessage("user", "user", None),),
    )


def synthetic_e3() -> dict[str, Any]:
    """A SYNTHETIC E3.json, written from an E3 view as ``experiments/e3/__init__.py`` writes it; the
    values are invented."""
    sizes = [(0, 2), (2, 4), (4, 4), (4, 4), (4, 4)]
    users = [
        "记住暗号：夜莺。只回复“收到”。",
        "暗号是什么？",
        "把暗号倒过来念。",
        "第一轮呢？",
        "再说一次。",
    ]
    rounds = tuple(
        _synthetic_round(number, user, before, after)
        for number, ((before, after), user) in enumerate(zip(sizes, users, strict=True), start=1)
    )
    last = rounds[-1].compaction
    view = E3View(
        "E3",
        "local/synthetic-model",
        SYNTHETIC_PROVENANCE,
        "你是压缩实验的对话助手。",
        E3Config(5, None, 2, 0, "off", "none"),
        rounds,
        SummaryMessage("user", "__compaction_summary__", last.summary if last else ""),
    )
    return to_data(view)


def synthetic_e2() -> dict[str, Any]:
    """A SYNTHETIC E2.json, written from an E2 view as the experiment writes it; the values are
    invented."""
    steps = []
    for step, (memory, daily) in enumerate([(0, None), (120, 40), (260, 95)], start=1):
        files = {"MEMORY.md": FileState(memory > 0, memory)}
        if daily is not None:
            files["memory/2026-01-02.md"] = FileState(True, daily)
        steps.append(
            StepRow(
                step=step,
                title=f"synthetic step {step}",
                tool_calls=("write_memory",) if step > 1 else (),
                answer=f"answer | {step}\nsecond line",
                files=files,
                watermark=None if step == 1 else f"wm-{step}",
            )
        )
    view = E2View("E2", "scripted", SYNTHETIC_PROVENANCE, "", True, tuple(steps), "", {})
    return to_data(view)


def synthetic_e3_claims() -> list[Claim]:
    """SYNTHETIC E3 claims, one matching and one differing."""
    return [
        Claim("E3", "E3-FIRST", "Compaction first fires in round 3.", "3", "3", "match", "harness"),
        Claim(
            "E3",
            "E3-LEN",
            "Summary | lengths.",
            "698",
            "61",
            "differs",
            "local/synthetic-model",
            "measured 61, the article reports 698",
        ),
    ]


def write_inputs(folder: Path, *extra: str) -> None:
    """Real E1 plus the named synthetic experiments (``E2``, ``E3``) into ``folder``."""
    result = e1.run(RunSettings(cassette_root=folder / "cassettes", progress=lambda _: None))
    write_json(folder / "E1.json", result.data)
    claims = list(result.claims)
    if "E3" in extra:
        write_json(folder / "E3.json", synthetic_e3())
        claims += synthetic_e3_claims()
    if "E2" in extra:
        write_json(folder / "E2.json", synthetic_e2())
    write_claims(claims_frame(claims), folder / "claims.csv")


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built once for the module: the tests only read it (one that builds again copies it)."""
    folder = tmp_path_factory.mktemp("report") / "reports"
    write_inputs(folder, "E2", "E3")
    build_reports(folder)
    return folder


@pytest.fixture
def own_reports(reports: Path, tmp_path: Path) -> Path:
    """A copy of the module's built report for a test that builds again in it."""
    return Path(shutil.copytree(reports, tmp_path / "own-reports"))


class PageCollector(HTMLParser):
    """Collects declarations, elements with attributes, table rows and their text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.declarations: list[str] = []
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.rows: list[tuple[str, dict[str, str], str]] = []
        self.open: list[str] = []
        self.tables: list[str] = []
        self.row: tuple[dict[str, str], list[str]] | None = None

    def handle_decl(self, decl: str) -> None:
        self.declarations.append(decl)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        self.elements.append((tag, attributes))
        if tag not in VOID_TAGS:
            self.open.append(tag)
        if tag == "table":
            self.tables.append(attributes.get("id", ""))
        if tag == "tr":
            self.row = (attributes, [])

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()
        if tag == "table":
            self.tables.pop()
        if tag == "tr" and self.row is not None:
            self.rows.append((self.tables[-1], self.row[0], "".join(self.row[1])))
            self.row = None

    def handle_data(self, data: str) -> None:
        if self.row is not None:
            self.row[1].append(data)


def parse(path: Path) -> PageCollector:
    collector = PageCollector()
    collector.feed(path.read_text(encoding="utf-8"))
    collector.close()
    assert collector.open == [], f"unclosed elements: {collector.open}"
    return collector


def test_build_writes_every_report_file(own_reports: Path) -> None:
    written = build_reports(own_reports)
    evidence = [p for p in written if p.parent.name == "evidence"]
    claims = read_claims(own_reports / "claims.csv")
    assert sorted(p.stem for p in evidence) == sorted(set(claims["claim_id"]))  # one a claim
    assert all(p.parent == own_reports / "evidence" and p.stat().st_size > 0 for p in evidence)
    written = [p for p in written if p not in evidence]
    names = sorted(p.name for p in written)
    assert names == sorted(
        [
            "claims.md",
            "E1.md",
            "E2.md",
            "E3.md",
            "E1_strip.png",
            "E2_files.png",
            "E3_context.png",
            "index.html",
        ]
    )
    assert all(p.parent == own_reports and p.stat().st_size > 0 for p in written)


def test_claims_md_summary_line_counts_the_claims(reports: Path) -> None:
    claims = read_claims(reports / "claims.csv")
    text = (reports / "claims.md").read_text(encoding="utf-8")
    found = re.search(
        r"^claims: (\d+) match, (\d+) differ, (\d+) mixed \(of (\d+)\)$", text, re.MULTILINE
    )
    assert found, text[:300]
    matched, differed, mixed, total = map(int, found.groups())
    # claims, not rows: here each claim has one row (E1's 10 and two others)
    assert total == len(claims) == matched + differed + mixed == 12 and mixed == 0
    assert matched == int((claims["status"] == "match").sum())
    table_rows = [line for line in text.splitlines() if line.startswith("| E")]
    assert len(table_rows) == len(claims)
    assert "Summary \\| lengths." in text  # a | in a cell is escaped, not a column break


def test_two_builds_give_identical_bytes(own_reports: Path, tmp_path: Path) -> None:
    def build(folder: Path) -> dict[str, bytes]:
        return {str(p.relative_to(folder)): p.read_bytes() for p in build_reports(folder)}

    first = build(own_reports)
    with MEMO.fresh():  # every plot drawn a second time
        again = build(own_reports)
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(own_reports, elsewhere)
    moved = build(elsewhere)
    assert first == again == moved
    built = {
        str(p.relative_to(own_reports))
        for p in own_reports.rglob("*")
        if p.suffix in {".md", ".png", ".html"}
    }
    assert set(first) == built


def test_index_html_is_one_valid_self_contained_page(reports: Path) -> None:
    text = (reports / "index.html").read_text(encoding="utf-8")
    page = parse(reports / "index.html")
    assert page.declarations == ["DOCTYPE html"]
    assert ("html", {"lang": "en"}) in page.elements
    assert ("meta", {"charset": "utf-8"}) in page.elements
    for tag, attributes in page.elements:
        for name in ("src", "href"):
            assert not attributes.get(name, "").startswith(("http://", "https://", "//")), tag
    assert not [tag for tag, _ in page.elements if tag == "link"]
    assert "<style>" in text and "<script>" in text and 'id="claims-filter"' in text


def test_index_html_claims_table_has_one_coloured_row_per_claim(reports: Path) -> None:
    claims = read_claims(reports / "claims.csv")  # one model each here: a row is a claim
    page = parse(reports / "index.html")
    rows = [(attrs, text) for table, attrs, text in page.rows if table == "claims-table"]
    body = [(a, t) for a, t in rows if "claim-row" in a.get("class", "").split()]
    assert len(body) == len(claims)
    for (attrs, text), claim in zip(body, claims.to_dict("records"), strict=True):
        assert f"status-{claim['status']}" in attrs["class"].split()
        assert attrs["data-experiment"] == claim["experiment"]
        assert (attrs["data-status"], attrs["data-kind"]) == (claim["status"], claim["kind"])
        assert attrs["data-statuses"] == f"{claim['model']}={claim['status']}"
        assert claim["claim_id"] in text
    html = (reports / "index.html").read_text(encoding="utf-8")
    for claim_id in claims["claim_id"]:  # shown once: the sections summarise, never repeat
        assert html.count(f'id="claim-{claim_id}"') == 1
        assert f'href="evidence/{claim_id}.html"' in html
    select = [a for tag, a in page.elements if tag == "select"]
    assert [a.get("data-filter") for a in select] == ["status", "kind", "experiment", "model"]
    html = (reports / "index.html").read_text(encoding="utf-8")
    experiments = re.search(r'data-filter="experiment".*?</select>', html)
    assert experiments
    assert re.findall(r'<option value="([^"]*)">', experiments.group(0)) == ["", "E1", "E3"]
    assert '<button type="button" id="only-differs">only differs</button>' in html


def test_each_experiment_has_its_section_in_the_registry_order(reports: Path) -> None:
    html = (reports / "index.html").read_text(encoding="utf-8")
    sections = re.findall(r'<section id="exp-([^"]+)" class="experiment"', html)
    assert sections == ["E1", "E2", "E3"]
    e3 = html[html.index('id="exp-E3"') :]
    assert e3.index('data-show="E3"') < e3.index('id="plot-E3_context"') < e3.index("</section>")
    matrix = html[html.index('id="verdicts"') : html.index('id="claims"')]
    assert 'href="#exp-E3"' in matrix and 'href="#exp-E1"' in matrix
    assert html.index('id="claims-filter"') < html.index('id="verdicts"')  # the filter on top
    assert html.index('id="verdicts"') < html.index('id="claims"') < html.index('id="exp-E1"')


def test_index_html_embeds_one_image_per_plot(reports: Path) -> None:
    page = parse(reports / "index.html")
    images = [a["src"] for tag, a in page.elements if tag == "img"]
    assert len(images) == len(list(reports.glob("*.png"))) == 3
    assert all(src.startswith("data:image/png;base64,") for src in images)


def test_index_html_lists_provenance(reports: Path) -> None:
    page = parse(reports / "index.html")
    rows = {a["data-experiment"]: t for _, a, t in page.rows if a.get("class") == "provenance"}
    assert set(rows) == {"E1", "E2", "E3"}
    assert "scripted (no model)" in rows["E1"]
    assert "synthetic-model.gguf" in rows["E3"] and SYNTHETIC_SHA[:12] in rows["E3"]
    assert SYNTHETIC_SHA not in rows["E3"]  # shortened on the page, full in the title attribute
    assert "2026-01-02T03:04:05Z" in rows["E3"] and "llama.cpp" in rows["E3"]


def test_provenance_may_be_a_list_of_cassettes(tmp_path: Path) -> None:
    write_inputs(tmp_path, "E3")
    data = synthetic_e3()
    second = dict(data["provenance"], model="second-model.gguf", recorded_at="2026-02-01")
    data["provenance"] = [data["provenance"], second]
    write_json(tmp_path / "E3.json", data)
    build_reports(tmp_path)
    page = parse(tmp_path / "index.html")
    e3 = [t for table, a, t in page.rows if a.get("data-experiment") == "E3"]
    provenance = [t for t in e3 if "gguf" in t]
    assert len(provenance) == 2 and "second-model.gguf" in provenance[1]


def test_pngs_open_and_have_the_set_size(reports: Path) -> None:
    paths = sorted(reports.glob("*.png"))
    assert [p.stem for p in paths] == ["E1_strip", "E2_files", "E3_context"]
    for path in paths:
        width, height = plot_size(path.stem)
        assert png_of(path) == ("PNG", (width, height))
        assert matplotlib.image.imread(path).shape[:2] == (height, width)


def test_only_present_experiments_are_plotted(tmp_path: Path) -> None:
    write_inputs(tmp_path)
    names = sorted(p.name for p in build_reports(tmp_path) if p.parent == tmp_path)
    assert names == ["E1.md", "E1_strip.png", "claims.md", "index.html"]


def test_e1_page_shows_both_histories_and_cutoffs(reports: Path) -> None:
    text = (reports / "E1.md").read_text(encoding="utf-8")
    data = json.loads((reports / "E1.json").read_text(encoding="utf-8"))
    assert text.startswith("# E1: ")
    assert "**Source:** scripted (no model)" in text
    assert f"**Naive cutoff:** {data['naive_cutoff']}, a tool_result message" in text
    assert f"**Safe cutoff:** {data['cutoff']}" in text
    assert data["reason"] in text
    assert all(line in text for line in data["log_lines"])
    assert "lookup_schedule(" in text  # the tool_use message shows its call
    assert "| E1-TOKENS |" in text


def test_e3_and_e2_pages_show_their_tables(reports: Path) -> None:
    e3 = (reports / "E3.md").read_text(encoding="utf-8")
    assert "| 3 | 把暗号倒过来念。 | 4 → 4 | 5 / 3 / 2 / 3 |" in e3
    assert "#### Round 5" in e3 and "第 5 轮 | 暗号 夜莺" in e3  # summaries in code blocks
    e2 = (reports / "E2.md").read_text(encoding="utf-8")
    assert "| 2 | synthetic step 2 | write_memory |" in e2
    assert "MEMORY.md: missing" in e2 and "memory/2026-01-02.md: 95 B" in e2
    assert "answer \\| 2 second line" in e2


def test_unknown_and_malformed_json_are_rendered_generically(tmp_path: Path) -> None:
    write_inputs(tmp_path)
    write_json(tmp_path / "E9.json", {"experiment": "E9", "score": 0.5, "nested": {"a": [1]}})
    write_json(tmp_path / "E3.json", {"experiment": "E3", "rounds": [{"round": "one"}]})
    (tmp_path / "E2.json").write_text("{not json", encoding="utf-8")
    written = {p.name for p in build_reports(tmp_path)}
    assert {"E2.md", "E3.md", "E9.md"} <= written
    assert "E3_context.png" not in written and "E2_files.png" not in written
    e9 = (tmp_path / "E9.md").read_text(encoding="utf-8")
    assert "no dedicated page" in e9 and "| score | 0.5 |" in e9 and '"nested"' in e9
    assert "not shaped as expected" in (tmp_path / "E3.md").read_text(encoding="utf-8")
    e2 = (tmp_path / "E2.md").read_text(encoding="utf-8")
    assert "not valid JSON" in e2 and "{not json" in e2
    page = parse(tmp_path / "index.html")
    hrefs = {a.get("href") for tag, a in page.elements if tag == "a"}
    assert {"E2.md", "E3.md", "E9.md", "E9.json"} <= hrefs


def test_markdown_table_escapes_pipes_and_line_breaks() -> None:
    frame = pd.DataFrame([{"a": "x | y", "b": "one\ntwo"}])
    assert markdown_table(frame) == "| a | b |\n| --- | --- |\n| x \\| y | one<br>two |\n"
    assert fence("has ``` inside").startswith("````\n")
