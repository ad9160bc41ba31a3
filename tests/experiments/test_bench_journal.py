"""``ctxlab bench`` loses no finished run: a bench killed with ``kill -9`` mid-run goes on,
run again with the same ``--out``, from where it stopped, without asking the model again for
the runs it finished; a second bench on the same folder is refused while the first runs; the
result is the same as an uninterrupted bench's, byte for byte.

Real processes (the killed bench is a child process) against a real OpenAI-compatible server
on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from support.loopback import Reply, ScriptedHTTPServer, completion, json_reply
from support.paths import ROOT

from experiments.x_bench.conditions import MODEL_FREE
from experiments.x_bench.journal import JOURNAL_NAME
from lab.cli import main

SMALL = ["--sizes", "2k", "--seeds", "1", "--langs", "en"]
CONDITIONS = ["--conditions", "truncation,agentscope,ctxlab"]
PROBE = "Answer each question below"


def _answer(body: dict[str, Any]) -> Reply:
    text = body["messages"][-1]["content"]
    if text == "ping":
        content = "o"
    elif text.startswith(PROBE):
        content = "\n".join(f"{n}. not known" for n in range(1, 13))
    else:
        content = "## SUMMARY\nThe team checks export papers."
    return json_reply(completion({"role": "assistant", "content": content}, {"prompt_tokens": 9}))


class _HoldThirdProbe(ScriptedHTTPServer):
    """Answers like :func:`_answer`, but holds the third probe (each condition's last call,
    truncation's too: a model-free condition is probed when there is a model) until
    :attr:`release` is set: the bench is then in its last run, two runs journaled."""

    def __init__(self) -> None:
        super().__init__(answer=self._reply)
        self.holding = threading.Event()
        self.release = threading.Event()
        self.probes = 0

    def _reply(self, body: dict[str, Any]) -> Reply:
        if body["messages"][-1]["content"].startswith(PROBE):
            self.probes += 1
            if self.probes == 3:
                self.holding.set()
                self.release.wait(60)
        return _answer(body)


def _bench(base_url: str, out: Path, *extra: str) -> list[str]:
    return [
        "bench", "--provider", "openai-compatible", "--base-url", base_url, "--model", "m",
        *SMALL, *CONDITIONS, "--out", str(out), *extra,
    ]  # fmt: skip


@pytest.fixture(scope="module")
def model_free(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The model-free bench of SMALL, made once for the module (the tests that damage its
    journal each start from a copy: what a bench leaves names no folder it ran in)."""
    out = tmp_path_factory.mktemp("model-free") / "out"
    assert main(["bench", *SMALL, "--out", str(out)]) == 0
    return out


def _probes(server: ScriptedHTTPServer) -> int:
    return sum(b["messages"][-1]["content"].startswith(PROBE) for b in server.bodies)


def test_a_killed_bench_goes_on_where_it_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    with _HoldThirdProbe() as server:
        child = subprocess.Popen(
            [sys.executable, "-m", "experiments", *_bench(server.base_url, out)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            assert server.holding.wait(60), "the bench never reached its third run"
            journaled = (out / JOURNAL_NAME).read_text(encoding="utf-8").splitlines()
            assert len(journaled) == 2  # truncation and agentscope, each on disk
            # a second bench on the same folder, while the first runs: refused at once
            assert main(_bench(server.base_url, out)) == 2
            refused = capsys.readouterr().err.strip().splitlines()
            assert len(refused) == 1 and "Another ctxlab bench is writing to" in refused[0]
            os.kill(child.pid, signal.SIGKILL)
            assert child.wait(30) == -signal.SIGKILL
        finally:
            server.release.set()
            if child.poll() is None:
                child.kill()
            child.wait(30)
            if child.stderr is not None:
                child.stderr.close()
        asked = _probes(server)
        assert main(_bench(server.base_url, out)) == 0
        # only ctxlab's run (the killed one) asked the model again; truncation, agentscope kept
        assert _probes(server) - asked == 1
        printed = capsys.readouterr().err
        assert "en-2k-s01 agentscope: survival" in printed and "(kept: run before)" in printed
    with ScriptedHTTPServer(answer=_answer) as fresh_server:
        assert main(_bench(fresh_server.base_url, tmp_path / "fresh")) == 0
    for name in ("bench-runs.csv", "bench-kinds.csv", "bench.md"):
        resumed = (out / name).read_text(encoding="utf-8")
        assert resumed == (tmp_path / "fresh" / name).read_text(encoding="utf-8"), name


def test_a_torn_last_line_is_skipped_and_fresh_starts_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model_free: Path
) -> None:
    out = Path(shutil.copytree(model_free, tmp_path / "out"))
    journal = out / JOURNAL_NAME
    lines = journal.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(MODEL_FREE)  # one line per model-free condition
    # a kill in the middle of the last line's write: the run is played again, the torn text
    # stays on a line of its own (never truncated away) and the next line starts clean
    journal.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:40], encoding="utf-8")
    capsys.readouterr()
    assert main(["bench", *SMALL, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "1 line(s) of" in err and err.count("(kept: run before)") == len(MODEL_FREE) - 1
    again = journal.read_text(encoding="utf-8").splitlines()
    assert again[:-1] == [*lines[:-1], lines[-1][:40]] and again[-1] == lines[-1]
    assert main(["bench", *SMALL, "--out", str(out), "--fresh"]) == 0
    err = capsys.readouterr().err
    # every run's line, and the torn line kept on its own
    assert f"--fresh: {len(MODEL_FREE) + 1} earlier line(s)" in err and "kept" not in err
    assert journal.read_text(encoding="utf-8").splitlines() == lines


def test_a_changed_conversation_is_played_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from experiments.x_bench.corpus import generate
    from experiments.x_bench.schema import dump_conversation

    mine = json.loads(dump_conversation(generate(1, "2k", "en")))
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(mine), encoding="utf-8")
    args = ["bench", "--conversations", str(path), "--conditions", "gate", "--out", str(tmp_path)]
    assert main(args) == 0
    mine["turns"][0]["user"] += " (edited)"
    path.write_text(json.dumps(mine), encoding="utf-8")
    capsys.readouterr()
    assert main(args) == 0
    assert "(kept: run before)" not in capsys.readouterr().err


def test_a_journal_that_is_a_symlink_is_refused_and_its_target_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("not a journal\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / JOURNAL_NAME).symlink_to(target)
    assert main(["bench", *SMALL, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"ctxlab: '{JOURNAL_NAME}' is outside the workspace (a symlink)"]
    assert target.read_text(encoding="utf-8") == "not a journal\n"
    assert sorted(p.name for p in out.iterdir()) == [JOURNAL_NAME]  # no results written


def _damaged(lines: list[str], case: str) -> list[str]:
    import json

    if case == "nested-too-deep":
        return [lines[0], "[" * 100_000 + "]" * 100_000, *lines[1:]]
    record = json.loads(lines[1])
    if case == "string-for-a-number":
        record["run"]["compactions"] = "3"
    elif case == "string-for-a-float":
        record["run"]["survival"] = "high"
    elif case == "not-an-object":
        record = [record]
    elif case == "key-a-number":
        record["key"] = 5
    return [lines[0], json.dumps(record), *lines[2:]]


@pytest.mark.parametrize(
    "case",
    [
        "nested-too-deep",
        "string-for-a-number",
        "string-for-a-float",
        "not-an-object",
        "key-a-number",
    ],
)
def test_a_damaged_journal_line_is_refused_naming_it_and_fresh_starts_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, model_free: Path
) -> None:
    out = Path(shutil.copytree(model_free, tmp_path / "out"))
    journal = out / JOURNAL_NAME
    good = journal.read_text(encoding="utf-8").splitlines()
    lines = _damaged(good, case)
    journal.write_text("\n".join(lines) + "\n", encoding="utf-8")
    damaged = journal.read_bytes()
    tables = {p.name: p.read_bytes() for p in out.glob("bench*") if p.name != JOURNAL_NAME}
    capsys.readouterr()
    assert main(["bench", *SMALL, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"ctxlab: {journal}:2 is not a run"), err
    assert "--fresh" in err[0] and "Error" not in err[0]
    assert journal.read_bytes() == damaged  # left as it was, for the user to look at
    assert {p.name: p.read_bytes() for p in out.glob("bench*") if p.name != JOURNAL_NAME} == tables
    # the lock went with the refusal: the same process can start over
    assert main(["bench", *SMALL, "--out", str(out), "--fresh"]) == 0
    assert f"--fresh: {len(lines)} earlier line(s)" in capsys.readouterr().err
    assert journal.read_text(encoding="utf-8").splitlines() == good


def test_a_password_in_the_base_url_reaches_neither_the_journal_nor_the_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "correct-horse-battery-staple-42"
    with ScriptedHTTPServer(answer=_answer) as server:
        url = server.base_url.replace("http://", f"http://lab:{secret}@")
        out = tmp_path / "out"
        assert main(_bench(url, out)) == 0
        journal = (out / JOURNAL_NAME).read_text(encoding="utf-8")
        assert secret not in journal and "lab@" not in journal
        assert f"|{server.base_url}|m " in journal  # host and port still tell servers apart
        capsys.readouterr()
        assert main(_bench(url, out)) == 0  # the same command keeps its runs
        assert capsys.readouterr().err.count("(kept: run before)") == 3
    closed = url.replace(f"{server.httpd.server_port}", f"{_closed_port()}")
    assert main(_bench(closed, tmp_path / "refused")) == 2
    said = capsys.readouterr()
    assert "did not answer" in said.err and secret not in said.out + said.err
    for path in tmp_path.rglob("*"):
        assert not path.is_file() or secret.encode() not in path.read_bytes(), path


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
