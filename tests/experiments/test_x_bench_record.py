"""``ctxlab record X-BENCH --slice K/N`` against a real OpenAI-compatible server on 127.0.0.1:
the slice's cassettes are written, progress names each with its time, a second run keeps them
(resumable), and ``ctxlab run X-BENCH`` then replays them offline."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.loopback import Reply, ScriptedHTTPServer, json_reply
from test_bench_cli import _answer

from experiments.x_bench import plan_slice, record, recording_plan
from experiments.x_bench.conditions import CONDITIONS
from experiments.x_bench.page import PAGE as X_BENCH_PAGE
from experiments.x_bench.suite import HELDOUT_CONDITIONS, HELDOUT_FIRST
from harness.timeouts import Timeouts
from lab.cli import main
from lab.errors import RecordingIncompleteError
from lab.experiment import RunSettings
from lab.recorder import provider_spec


def test_the_plan_is_sliced_contiguously_and_completely() -> None:
    plan = recording_plan()
    assert len(plan) == 18 * (len(CONDITIONS) - len(HELDOUT_FIRST)) + 12 * len(HELDOUT_CONDITIONS)
    parts = [plan_slice(plan, (k, 7)) for k in range(1, 8)]
    assert [item for part in parts for item in part] == plan
    assert plan_slice(plan, (1, 36)) == plan[: -(-len(plan) // 36)]


@pytest.mark.slow  # records from a loopback server, then replays
def test_record_a_slice_then_replay_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cassettes, reports = tmp_path / "cassettes", tmp_path / "reports"
    with ScriptedHTTPServer(answer=_answer) as server:
        args = ["record", "X-BENCH", "--provider", "openai-compatible", "--model", "m"]
        args += ["--base-url", server.base_url, "--slice", "1/40"]
        args += ["--cassettes", str(cassettes), "--out", str(reports)]
        assert main(args) == 0
        first = capsys.readouterr().out
        calls = len(server.bodies)
        spec = provider_spec("openai-compatible", model="m", base_url=server.base_url)
        lines: list[str] = []
        record(RunSettings(cassettes, "record", spec, progress=lines.append, slice=(1, 40)))
        assert len(server.bodies) == calls  # nothing re-recorded
    part = plan_slice(recording_plan(), (1, 40))  # the first conversation, up to agentscope
    named = [name for _, name in part]
    assert "agentscope" in named
    names = sorted(p.name for p in cassettes.rglob("*.json"))
    assert names == sorted(f"{c.id}--{n}.json" for c, n in part)
    at = named.index("agentscope") + 1
    assert f"X-BENCH [{at}/{len(part)}] zh-2k-s01--agentscope: " in first
    assert " s\n" in first and "X-BENCH slice 1/40 recorded in " in first
    assert sum("kept (already recorded)" in line for line in lines) == len(part)
    view = X_BENCH_PAGE.read(json.loads((reports / "X-BENCH.json").read_text(encoding="utf-8")))
    recorded = [r for r in view.runs if r.model != "none"]
    # a condition whose committed cassettes are of an earlier definition is not replayed yet
    assert {r.condition for r in recorded} == {n for _, n in part if CONDITIONS[n].replays_recorded}
    assert all(r.conversation == "zh-2k-s01" and r.answered for r in recorded)
    agentscope = next(r for r in recorded if r.condition == "agentscope")
    assert agentscope.summary_calls >= 1
    assert "agentscope" not in view.not_recorded and "dsh" in view.not_recorded
    assert (reports / "X-BENCH.md").is_file()


def test_a_bad_slice_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["record", "X-BENCH", "--provider", "local", "--slice", "3/2"])
    assert "expected K/N with 1 <= K <= N" in capsys.readouterr().err


@pytest.mark.slow  # records from a loopback server
def test_record_only_the_conditions_asked_for(tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    spec_args = ["--provider", "openai-compatible", "--model", "m", "--cassettes", str(cassettes)]
    with ScriptedHTTPServer(answer=_answer) as server:
        args = ["record", "X-BENCH", *spec_args, "--base-url", server.base_url]
        args += [
            "--conditions",
            "full,truncation",
            "--slice",
            "1/16",
            "--out",
            str(tmp_path / "reports"),
            "--no-replay",  # the cassettes recorded are what is shown, not their replay
        ]
        assert main(args) == 0
    wanted = [(c, n) for c, n in recording_plan() if n in ("full", "truncation")]
    part = plan_slice(wanted, (1, 16))
    assert len(part) == 3  # 48 cassettes of the two conditions (12 held-out), in 16 slices
    names = sorted(p.name for p in cassettes.rglob("*.json"))
    assert names == sorted(f"{c.id}--{n}.json" for c, n in part)
    assert not (tmp_path / "reports").exists()  # --no-replay: no replay wrote a report


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["X-BENCH", "--conditions", "full,nope"], "--conditions takes full, truncation"),
        (["E3", "--conditions", "full"], "name X-BENCH to record"),
    ],
)
def test_bad_conditions_are_one_sentence(
    extra: list[str], says: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["record", *extra, "--provider", "openai-compatible", "--model", "m"]
    args += ["--base-url", "http://127.0.0.1:9/v1", "--cassettes", str(tmp_path)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert says in err and "nope" in err if "nope" in extra[2] else says in err
    assert not list(tmp_path.rglob("*.json"))


def test_an_empty_condition_name_is_refused_by_the_parser(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["record", "X-BENCH", "--provider", "local", "--conditions", "full,"])
    assert "expected NAME[,NAME...]" in capsys.readouterr().err


def _refuse_full_probes(body: dict[str, Any]) -> Reply:
    """``_answer``, but a 400 for the English probe of the full context (the longest)."""
    text = body["messages"][-1]["content"]
    if text.startswith("Answer each question below") and len(body["messages"]) > 20:
        return json_reply({"error": {"message": "too long", "type": "invalid_request"}}, 400)
    return _answer(body)


@pytest.mark.slow  # records from a loopback server
def test_a_cassette_that_fails_does_not_stop_the_slice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassettes = tmp_path / "cassettes"
    with ScriptedHTTPServer(answer=_refuse_full_probes) as server:
        args = ["record", "X-BENCH", "--provider", "openai-compatible", "--model", "m"]
        args += ["--base-url", server.base_url, "--cassettes", str(cassettes)]
        args += [
            "--conditions",
            "full,truncation",
            "--slice",
            "1/12",
            "--out",
            str(tmp_path / "reports"),
        ]
        assert main(args) == 2
    captured = capsys.readouterr()
    names = sorted(p.name for p in cassettes.rglob("*.json"))
    recorded = ["en-2k-s01--truncation", "zh-2k-s01--full", "zh-2k-s01--truncation"]
    assert names == [f"{n}.json" for n in recorded]  # en-2k-s01's truncation after the failure
    assert "X-BENCH [3/4] en-2k-s01--full: not recorded, going on (" in captured.out
    assert "X-BENCH [4/4] en-2k-s01--truncation: " in captured.out
    assert "1 cassette(s) of the slice were not recorded (en-2k-s01--full)" in captured.err


@pytest.mark.slow  # records from a loopback server that keeps one answer waiting
def test_a_timeout_on_a_local_server_stops_the_slice(tmp_path: Path) -> None:
    def slow_full_probe(body: dict[str, Any]) -> Reply:
        if _refuse_full_probes(body)[0] == 400:  # the English full probe: never in time
            time.sleep(1.0)
        return _answer(body)

    lines: list[str] = []
    with ScriptedHTTPServer(answer=slow_full_probe) as server:
        spec = provider_spec("openai-compatible", model="m", base_url=server.base_url)
        settings = RunSettings(
            tmp_path, "record", spec, server_info={"server": "llama-cpp-python"},
            progress=lines.append, timeouts=Timeouts(connect=1.0, read=0.2, total=0.5),
            slice=(1, 12), conditions=("full", "truncation"),
        )  # fmt: skip
        with pytest.raises(RecordingIncompleteError, match="the slice stopped there"):
            record(settings)
    names = sorted(p.name for p in tmp_path.rglob("*.json"))
    assert names == ["zh-2k-s01--full.json", "zh-2k-s01--truncation.json"]
    assert any(line.startswith("X-BENCH [3/4] en-2k-s01--full: not recorded (") for line in lines)
    assert not any("[4/4]" in line for line in lines)  # nothing waited behind the stuck answer


@pytest.mark.slow  # records from a loopback server
def test_a_cassette_another_recorder_holds_is_left_to_it(tmp_path: Path) -> None:
    lines: list[str] = []
    with ScriptedHTTPServer(answer=_answer) as server:
        spec = provider_spec("openai-compatible", model="m", base_url=server.base_url)
        settings = RunSettings(
            tmp_path, "record", spec, progress=lines.append, slice=(1, 12),
            conditions=("full", "truncation"),
        )  # fmt: skip
        held = settings.cassette_path("X-BENCH", "zh-2k-s01--truncation")
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD_LOCK, str(held)], stdout=subprocess.PIPE, text=True
        )
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
            with pytest.raises(RecordingIncompleteError, match=r"\(zh-2k-s01--truncation\)"):
                record(settings)
        finally:
            holder.kill()
            holder.wait()
    names = sorted(p.name for p in tmp_path.rglob("*.json"))
    assert names == [f"{n}.json" for n in ("en-2k-s01--full", "en-2k-s01--truncation",
                                           "zh-2k-s01--full")]  # fmt: skip
    assert any("zh-2k-s01--truncation: not recorded, going on (" in line for line in lines)


HOLD_LOCK = """
import sys, time
from pathlib import Path
from lab.recorder.recording_lock import recording_lock
with recording_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""
