"""``ctxlab compactbench``: CompactBench's own runner and scorer drive ctxlab's engines and its
built-in methods through ctxlab's client, against a real HTTP server on 127.0.0.1, and a
recorded run replays offline to the same table.

The model is scripted: it answers an evaluation question with everything it was shown (a reader
that invents nothing), and every other request with "ok", so a method's score is what its
artifact kept. CompactBench's compression ratio counts tokens with tiktoken's ``cl100k_base``,
which tiktoken downloads; the tests give its scorer a whitespace tokenizer instead (no network)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("compactbench")

from support.loopback import Reply, ScriptedHTTPServer, say

from experiments.cli import main

OWN_SUITES = Path(__file__).parent / "data" / "compactbench"
METHODS = ("ctxlab", "agentscope", "dsh", "hybrid-ledger", "naive-summary")


class WordTokens:
    """A stand-in for tiktoken's encoding: one token per whitespace-separated word."""

    def encode(self, text: str) -> list[str]:
        return text.split()


@pytest.fixture(autouse=True)
def offline_tokenizer(monkeypatch: pytest.MonkeyPatch) -> None:
    from compactbench.scoring import compression

    monkeypatch.setitem(compression._ENCODER_CACHE, "cl100k_base", WordTokens())


def reader(body: dict[str, Any]) -> Reply:
    prompt = body["messages"][-1]["content"]
    if prompt.startswith("You have the following summary"):
        return say(prompt.split("Based only on this summary")[0])
    return say("ok")


def args(out: Path, *extra: str, methods: tuple[str, ...] = METHODS) -> list[str]:
    return [
        "compactbench",
        "--benchmarks-dir",
        str(OWN_SUITES),
        "--suite",
        "own",
        "--methods",
        ",".join(methods),
        "--out",
        str(out),
        *extra,
    ]


def rows(table: str) -> dict[str, list[str]]:
    cells = [line.strip("|").split("|") for line in table.splitlines() if line.startswith("| ")]
    return {c[0].strip(): [x.strip() for x in c[1:]] for c in cells[2:]}


def test_every_method_is_scored_by_compactbench_through_our_client(tmp_path: Path) -> None:
    live = ["--provider", "openai-compatible", "--base-url", "", "--model", "m"]
    with ScriptedHTTPServer(answer=reader) as server:
        live[3] = server.base_url
        assert main(args(tmp_path / "live", *live)) == 0
    table = rows((tmp_path / "live" / "compactbench.md").read_text("utf-8"))
    assert list(table) == list(METHODS)
    assert all(row[0] == "1" for row in table.values())  # one case each, all finished
    # the reader keeps what an artifact kept: ctxlab's context holds the facts, a summary of
    # "ok" does not
    assert float(table["ctxlab"][1]) > float(table["naive-summary"][1])
    ledger = [b for b in server.bodies if b.get("response_format") == {"type": "json_object"}]
    assert ledger, "hybrid-ledger's JSON request went out with its response_format"
    assert all(b["temperature"] == 0.0 for b in server.bodies)


def test_a_recorded_run_replays_offline_to_the_same_table(tmp_path: Path) -> None:
    cassette = tmp_path / "compactbench.json"
    with ScriptedHTTPServer(answer=reader) as server:
        record = ["--provider", "openai-compatible", "--base-url", server.base_url]
        assert (
            main(
                args(
                    tmp_path / "rec",
                    *record,
                    "--model",
                    "m",
                    "--cassette",
                    str(cassette),
                    "--record",
                )
            )
            == 0
        )
    assert main(args(tmp_path / "replay", "--cassette", str(cassette))) == 0
    recorded = rows((tmp_path / "rec" / "compactbench.md").read_text("utf-8"))
    replayed = rows((tmp_path / "replay" / "compactbench.md").read_text("utf-8"))
    assert recorded == replayed


def test_without_a_model_or_a_suite_it_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args(tmp_path)) == 2
    assert "needs --provider (live) or --cassette" in capsys.readouterr().err
    bad = ["compactbench", "--benchmarks-dir", str(tmp_path), "--suite", "none", "--cassette", "x"]
    assert main(bad) == 2
    assert "no suite folder" in capsys.readouterr().err


def _earlier_run(path: Path, model: str, *, finished: bool) -> None:
    """A results file as CompactBench's runner starts one (our own lines, no model output)."""
    start = {
        "event": "run_start",
        "run_id": "r1",
        "method_name": "ctxlab",
        "method_version": "1",
        "suite_key": "own",
        "suite_version": "1",
        "scorer_version": "1.0.0",
        "target_provider": "ctxlab",
        "target_model": model,
        "difficulty": "medium",
        "drift_cycles": 1,
        "seed_group": "default",
        "case_count_per_template": 1,
        "started_at": "2026-12-01T00:00:00Z",
    }
    scores = dict.fromkeys(
        ("overall_score", "drift_resistance", "constraint_retention", "contradiction_rate"), 0.5
    )
    end = {"event": "run_end", "completed_at": "2026-12-01T00:01:00Z", "compression_ratio": 2.0}
    lines = [start] + ([end | scores] if finished else [])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")


@pytest.mark.parametrize("finished", [True, False])
def test_a_run_of_another_model_in_out_is_refused_not_read_or_resumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], finished: bool
) -> None:
    out = tmp_path / "out"
    _earlier_run(out / "ctxlab.jsonl", "other-model", finished=finished)
    with ScriptedHTTPServer(answer=reader) as server:
        live = ["--provider", "openai-compatible", "--base-url", server.base_url, "--model", "m"]
        assert main(args(out, *live)) == 2
    err = capsys.readouterr().err.strip()
    assert "is a run of another kind (target_model 'other-model' (asked: 'm'))" in err
    assert len(err.splitlines()) == 1
    assert not (out / "compactbench.md").exists()
    assert not server.bodies, "nothing was asked of the model"


def wordy_summarizer(body: dict[str, Any]) -> Reply:
    """A summary longer than anything it replaces (a small model's habit); the reader as above."""
    if body["messages"][-1]["content"].startswith("You have the following summary"):
        return reader(body)
    return say(" ".join(f"note{i} restated at length" for i in range(400)))


def test_a_refused_compaction_hands_over_the_context_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DSH refuses a summary not smaller than its span (fails closed): the context stands, so
    the method hands it over as it is and says why, instead of ending CompactBench's run."""
    out = tmp_path / "out"
    with ScriptedHTTPServer(answer=wordy_summarizer) as server:
        live = ["--provider", "openai-compatible", "--base-url", server.base_url, "--model", "m"]
        assert main(args(out, *live, methods=("dsh",))) == 0
    err = capsys.readouterr().err
    assert "dsh refused a compaction: summary is not smaller than the shadowed content" in err
    table = rows((out / "compactbench.md").read_text("utf-8"))
    assert list(table) == ["dsh"] and table["dsh"][0] == "1"  # the case finished
    # the context handed over is the transcript itself: the reader still finds its constraints
    assert table["dsh"][3] == "1.000"
