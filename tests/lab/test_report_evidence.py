"""The evidence pages behind the claims table: every claim row links to a page that exists and
names the claim; E3-RECALL's page shows the round-4 and round-5 requests and answers it was
judged on, as recorded; X-BENCH's pages show the facts each condition kept, lost or invented per
conversation; model output is escaped; a long text is shortened but exact.

Read from the committed ``reports/`` (``ctxlab run`` rebuilds it) and, for escaping, from a
page built here over a cassette made up for the test.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pandas as pd
from support.paths import ROOT

from experiments.e3 import ROUNDS
from lab.report.evidence import evidence_pages
from lab.report.evidence.calls import clip
from lab.report.tables import ExperimentDoc, ReportInputs

REPORTS = ROOT / "reports"
MODELS = ("qwen2.5-coder-1.5b-instruct-q4_k_m", "qwen2.5-coder-0.5b-instruct-q4_k_m")


def _text(page: str) -> str:
    """The page's text: tags dropped, entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_every_claim_row_links_to_an_evidence_page_holding_its_id() -> None:
    index = (REPORTS / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r'<tr class="claim-row[^"]*" id="claim-([^"]+)"(.*?)</tr>', index, re.S)
    claims = pd.read_csv(REPORTS / "claims.csv", dtype=str, keep_default_na=False)
    assert len(rows) == len(claims.groupby(["experiment", "claim_id"])) > 100
    for claim_id, row in rows:
        links = re.findall(r'<a class="claim-id" href="([^"]+)"', row)
        assert links == [f"evidence/{claim_id}.html"], (claim_id, links)
        page = REPORTS / links[0]
        assert page.is_file(), f"{claim_id}'s evidence link does not resolve: {page}"
        text = page.read_text(encoding="utf-8")
        assert f'<h1><span class="id">{claim_id}</span></h1>' in text
        assert "http://" not in text.replace("http://localhost/", "") and "<script" not in text


def test_e3_recall_shows_the_round_4_and_5_requests_and_answers() -> None:
    page = (REPORTS / "evidence" / "E3-RECALL.html").read_text(encoding="utf-8")
    text = _text(page)
    assert "Rounds 4 and 5 still name the code word" in text
    assert "e3-rules" in text and "E3's rules over the recorded rounds" in text  # the rule
    for model in MODELS:
        part = text[text.index(f"{model}:") :]
        cassette = ROOT / "cassettes" / "E3" / f"local-{model}" / "rounds.json"
        interactions = json.loads(cassette.read_text(encoding="utf-8"))["interactions"]
        for number in (4, 5):
            # the recorded call of that round: its request ends with the round's question
            call = next(
                (n, i)
                for n, i in enumerate(interactions, 1)
                if i["request"]["body"]["json"]["messages"][-1]["content"] == ROUNDS[number - 1]
            )
            n, interaction = call
            heading = f"Round {number}: call {n} of cassettes/E3/local-{model}/rounds.json"
            assert heading in part, heading
            shown = part[part.index(heading) :]
            answer = interaction["response"]["body"]["json"]["choices"][0]["message"]["content"]
            usage = interaction["response"]["body"]["json"]["usage"]
            assert ROUNDS[number - 1] in shown and answer in shown
            assert f"prompt tokens: {usage['prompt_tokens']}" in shown
            assert "cached prompt tokens:" in shown
    assert page.count("Round 4: call") == page.count("Round 5: call") == len(MODELS)
    assert "Round 1: call" not in page and "Round 3: call" not in page  # only what it read


def test_x_bench_pages_show_each_conditions_facts_per_conversation() -> None:
    page = (REPORTS / "evidence" / "X-BENCH-GATE-ADDS.html").read_text(encoding="utf-8")
    data = json.loads((REPORTS / "X-BENCH.json").read_text(encoding="utf-8"))
    for condition in ("agentscope", "agentscope+gate", "dsh", "dsh+gate"):
        assert f"<h3><code>{html.escape(condition)}</code>" in page
    run = next(
        r
        for r in data["runs"]
        if r["condition"] == "dsh+gate" and r["model"] == f"local-{MODELS[0]}" and r["lost"]
    )
    text = _text(page)
    assert ", ".join(run["lost"]) in text and ", ".join(run["survived"]) in text
    assert f"cassettes/X-BENCH/local-{MODELS[0]}/{run['conversation']}--dsh+gate.json" in text


def test_a_long_text_is_shortened_but_exact() -> None:
    text = "".join(chr(0x4E00 + i % 500) for i in range(1000))
    cut = clip(text, 100, 50)
    assert (cut.head, cut.tail) == (text[:100], text[-50:]) and cut.cut == 850
    assert clip("short").cut == 0 and clip("short").head == "short"


def test_model_output_is_escaped_on_an_evidence_page(tmp_path: Path) -> None:
    model = "m1"
    cassettes = tmp_path / "cassettes"
    folder = cassettes / "E2" / f"local-{model}"
    folder.mkdir(parents=True)
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    interaction = {
        "request": {"body": {"json": {"messages": [{"role": "user", "content": hostile}]}}},
        "response": {
            "status": {"code": 200},
            "body": {
                "json": {
                    "choices": [{"message": {"role": "assistant", "content": hostile}}],
                    "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
                }
            },
        },
    }
    (folder / "steps.json").write_text(json.dumps({"interactions": [interaction]}), "utf-8")
    claims = pd.DataFrame(
        [
            {
                "experiment": "E2",
                "claim_id": "E2-X",
                "model": model,
                "kind": "ctxlab",
                "claim": f"a claim {hostile}",
                "article_value": "",
                "reproduced_value": hostile,
                "status": "differs",
                "reason_class": "model",
                "source": f"local/{model}",
                "article_source": "",
                "note": hostile,
            }
        ]
    )
    inputs = ReportInputs(claims, (ExperimentDoc("E2", {}, "{}"),))
    pages = evidence_pages(inputs, cassettes, "ctxlab")
    page = pages["evidence/E2-X.html"]
    assert "<script" not in page and "<img" not in page
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 5  # claim, value, note, 2 calls
    assert "Which recorded calls fed this claim is not tracked" in page  # whole cassette
    assert "prompt tokens: 5" in page and "cached prompt tokens: not reported" in page
