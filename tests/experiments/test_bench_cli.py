"""``ctxlab bench``: the benchmark against a real OpenAI-compatible server on 127.0.0.1, on a
user's own conversations, and one sentence for each way it cannot run."""

from __future__ import annotations

import csv
import json
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from support.loopback import Reply, ScriptedHTTPServer, completion, json_reply

from experiments.x_bench.conditions import MODEL_FREE
from experiments.x_bench.corpus import generate
from experiments.x_bench.schema import dump_conversation
from lab.cli import main

KEY_ENV = "CTXLAB_BENCH_TEST_KEY"
SMALL = ["--sizes", "2k", "--seeds", "1", "--langs", "en"]


def _answer(body: dict[str, Any]) -> Reply:
    """Summaries for summary calls, a numbered answer for the probe, "o" for the preflight."""
    text = body["messages"][-1]["content"]
    if text == "ping":
        content = "o"
    elif text.startswith("Answer each question below"):
        content = "\n".join(f"{n}. not known" for n in range(1, 13))
    else:
        content = "## SUMMARY\nThe team checks export papers."
    usage = {"prompt_tokens": 100, "completion_tokens": 10}
    return json_reply(completion({"role": "assistant", "content": content}, usage))


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as file:
        return list(csv.DictReader(file))


def test_bench_against_a_live_openai_compatible_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-bench-test")
    out = tmp_path / "out"
    with ScriptedHTTPServer(answer=_answer) as server:
        status = main(
            [
                "bench",
                "--provider",
                "openai-compatible",
                "--base-url",
                server.base_url,
                "--model",
                "m",
                "--api-key-env",
                KEY_ENV,
                *SMALL,
                "--conditions",
                "full,agentscope,agentscope+gate",
                "--out",
                str(out),
            ]
        )
    assert status == 0
    printed = capsys.readouterr().out
    assert re.search(r"^agentscope\+gate\s+1\s+", printed, re.MULTILINE)
    runs = {r["condition"]: r for r in _rows(out / "bench-runs.csv")}
    assert set(runs) == {"full", "agentscope", "agentscope+gate"}
    assert int(runs["agentscope"]["summary_calls"]) >= 1
    assert runs["full"]["correct"] == "1"  # only the abstention probe: "not known"
    purposes = [b["messages"][-1]["content"][:6] for b in server.bodies]
    assert purposes[0] == "ping" and purposes.count("Answer") == 3
    assert "sk-bench-test" not in (out / "bench.md").read_text() + printed
    assert (out / "bench-kinds.csv").is_file()
    # full context never compacts: it carried nothing forward, shown as "—", not as 0 tokens
    assert re.search(r"^full\s+1\s+100% \[100%, 100%\]\s+\S+\s+—$", printed, re.MULTILINE)
    page = (out / "bench.md").read_text(encoding="utf-8")
    assert "| condition | what | model |" in page and "survival [95 % CI]" in page
    # the cost table has a row for every condition, the model-free one run with the probe too
    cost = page.split("### Cost", 1)[1]
    assert all(f"| {name} | m | 2k | 1 |" in cost for name in runs), cost
    # no truncation or masking to pair against: a sentence, not an empty, broken table
    pairs = page.split("### Paired differences", 1)[1].split("###", 1)[0]
    assert "None: each condition is paired against" in pairs and "| --- |" not in pairs


def test_bench_without_a_provider_runs_the_model_free_conditions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", *SMALL, "--out", str(tmp_path)]) == 0
    conditions = [r["condition"] for r in _rows(tmp_path / "bench-runs.csv")]
    assert conditions == list(MODEL_FREE)
    assert MODEL_FREE == ("full", "truncation", "masking", "gate", "ctxlab-pin", "ctxlab-recall",
                          "ctxlab-gate", "ctxlab-gate-nodefs")  # fmt: skip
    assert "wrote " in capsys.readouterr().out


def test_bench_on_the_users_own_conversations(tmp_path: Path) -> None:
    mine = json.loads(dump_conversation(generate(4, "2k", "zh")))
    mine.update(id="my-own", size="custom", seed=None)
    path = tmp_path / "mine.json"
    path.write_text(json.dumps([mine], ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "out"
    assert (
        main(
            ["bench", "--conversations", str(path), "--conditions", "full,gate", "--out", str(out)]
        )
        == 0
    )
    rows = _rows(out / "bench-runs.csv")
    assert [(r["conversation"], r["condition"]) for r in rows] == [
        ("my-own", "full"),
        ("my-own", "gate"),
    ]
    assert rows[0]["survival"] == "1.0"


def _one_sentence(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ctxlab: ")
    return err[0]


def test_a_missing_key_is_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    status = main(["bench", "--provider", "deepseek", *SMALL, "--out", str(tmp_path)])
    assert status == 2
    assert "set the environment variable DEEPSEEK_API_KEY" in _one_sentence(capsys)
    assert not list(tmp_path.iterdir())


def test_an_unreachable_server_is_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv(KEY_ENV, "sk-x")
    args = ["bench", "--provider", "openai-compatible", "--model", "m", "--api-key-env", KEY_ENV]
    url = f"http://127.0.0.1:{port}/v1"
    status = main([*args, "--base-url", url, *SMALL, "--out", str(tmp_path / "o")])
    assert status == 2
    line = _one_sentence(capsys)
    assert f"The model server {url} did not answer" in line and "could not reach" in line
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--conversations", "missing.json"], "does not exist"),
        (["--conditions", "full,magic"], "--conditions takes full"),
        (["--sizes", "3k"], "--sizes takes 2k, 8k, 24k; not 3k"),
        (["--seeds", "3-1"], "--seeds must look like 1-3"),
        (["--conditions", "agentscope"], "need a model: pass --provider"),
    ],
)
def test_bad_input_is_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], words: str
) -> None:
    fixed = [e if e != "missing.json" else str(tmp_path / e) for e in extra]
    assert main(["bench", *fixed, "--out", str(tmp_path / "o")]) == 2
    assert words in _one_sentence(capsys)


def test_every_budget_of_the_users_own_conversations_is_shown(tmp_path: Path) -> None:
    # a conversation of your own gets its budget from its tokens: two sizes, two budgets
    mine = []
    for seed, size in ((1, "2k"), (1, "8k")):
        data = json.loads(dump_conversation(generate(seed, size, "en")))
        mine.append(data | {"id": f"mine-{size}", "size": "custom"})
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(mine), encoding="utf-8")
    out = tmp_path / "out"
    assert (
        main(["bench", "--conversations", str(path), "--conditions", "gate", "--out", str(out)])
        == 0
    )
    line = next(x for x in (out / "bench.md").read_text().splitlines() if x.startswith("Budgets"))
    assert line.count("custom: trigger") == 2, line


# --- files beyond what ctxlab bench reads: one sentence, before the work that grows with them --


def _write_conversations(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _mine(**changes: Any) -> dict[str, Any]:
    return json.loads(dump_conversation(generate(1, "2k", "en"))) | changes


def test_a_conversations_file_nested_too_deep_is_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert main(["bench", "--conversations", str(path), "--out", str(tmp_path / "o")]) == 2
    line = _one_sentence(capsys)
    assert f"The conversations file {path}" in line and "100,000 levels deep" in line, line
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("bytes", "is larger than 67,108,864 bytes, the most ctxlab bench reads"),
        ("conversations", "holds 1,001 conversations; ctxlab bench reads at most 1,000"),
        ("turns", "holds 5,001 turns; ctxlab bench reads at most 5,000"),
        ("facts", "holds 501 facts; ctxlab bench reads at most 500"),
    ],
)
def test_a_conversations_file_beyond_the_limits_is_refused_in_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, words: str
) -> None:
    from experiments.x_bench import limits

    path = tmp_path / "big.json"
    if case == "bytes":  # sparse: nothing is written, the size alone refuses it
        with path.open("wb") as file:
            file.truncate(limits.MAX_FILE_BYTES + 1)
    elif case == "conversations":
        _write_conversations(path, [{}] * (limits.MAX_CONVERSATIONS + 1))
    elif case == "turns":
        _write_conversations(path, [_mine(turns=[{}] * (limits.MAX_TURNS + 1))])
    else:
        _write_conversations(path, [_mine(facts=[{}] * (limits.MAX_FACTS + 1))])
    assert main(["bench", "--conversations", str(path), "--out", str(tmp_path / "o")]) == 2
    line = _one_sentence(capsys)
    assert words in line and (path.name in line), line
    assert not (tmp_path / "o").exists()


def test_a_formula_in_the_users_text_is_written_as_text_in_the_csvs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    formula = '=HYPERLINK("http://x","y")'
    path = _write_conversations(tmp_path / "mine.json", [_mine(id=formula, size="-big")])
    out = tmp_path / "out"
    monkeypatch.setenv(KEY_ENV, "sk-x")
    with ScriptedHTTPServer(answer=_answer) as server:
        args = ["bench", "--provider", "openai-compatible", "--base-url", server.base_url]
        args += ["--model", "@model", "--api-key-env", KEY_ENV, "--conversations", str(path)]
        assert main([*args, "--conditions", "full", "--out", str(out)]) == 0
    runs = _rows(out / "bench-runs.csv")
    assert [(r["conversation"], r["size"], r["model"]) for r in runs] == [
        ("'" + formula, "'-big", "'@model")
    ]
    kinds = _rows(out / "bench-kinds.csv")
    assert kinds and {r["model"] for r in kinds} == {"'@model"}
    cells = [cell for rows in (runs, kinds) for r in rows for cell in r.values()]
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in cells)
