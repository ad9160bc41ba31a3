"""Two ``ctxlab record`` of one cassette at once: the cassette is checked,
recorded and written under its lock, so the second recorder is refused with one sentence naming
the first, writes nothing, and the cassette holds the first recorder's traffic only.

Both recorders are real processes talking to a scripted model behind a real HTTP server on
127.0.0.1 (:mod:`fixed_model`); the server holds the first recorder's first request until the
second recorder has finished, so the two recordings overlap for certain.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from support.fixed_model import FixedModel
from support.loopback import QuietHTTPServer
from support.paths import ROOT

PROJECT_ROOT = ROOT


@contextmanager
def held_server() -> Iterator[tuple[str, threading.Event, threading.Event]]:
    """A :class:`FixedModel` server whose first request waits for ``release``; ``first`` is
    set when it arrives."""
    first, release = threading.Event(), threading.Event()
    seen = iter(range(10**9))

    class Held(FixedModel):
        def do_POST(self) -> None:
            if next(seen) == 0:
                first.set()
                release.wait(300)
            super().do_POST()

    server = QuietHTTPServer(("127.0.0.1", 0), Held)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1", first, release
    finally:
        release.set()
        server.shutdown()
        server.server_close()


@pytest.mark.slow  # two recording processes
def test_a_second_record_of_the_same_cassette_is_refused_and_writes_nothing(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    (root / "reports").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "ctxlab"\n', encoding="utf-8")
    cassettes = tmp_path / "cassettes"
    env = {**os.environ, "CTXLAB_FAKE_KEY": "sk-fake-key-0123456789abcdef", "MPLBACKEND": "Agg"}

    def record(url: str, out: str, *extra: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "experiments", "record", "E3",
             "--provider", "openai-compatible", "--base-url", url, "--model", "fixed-model",
             "--api-key-env", "CTXLAB_FAKE_KEY", "--cassettes", str(cassettes),
             "--out", str(tmp_path / out), "--project", str(root), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
            cwd=PROJECT_ROOT,
        )  # fmt: skip

    with held_server() as (url, first, release):
        winner = record(url, "reports-a", "--no-replay")  # its replay is not what is shown
        assert first.wait(300), winner.communicate()
        loser = record(url, "reports-b")
        _, loser_err = loser.communicate(timeout=300)
        release.set()
        _, winner_err = winner.communicate(timeout=300)
    assert winner.returncode == 0, winner_err
    assert loser.returncode != 0
    assert "is being recorded by pid" in loser_err and str(winner.pid) in loser_err
    cassette = cassettes / "E3" / "openai-compatible-fixed-model" / "rounds.json"
    data = json.loads(cassette.read_text(encoding="utf-8"))
    assert data["interactions"]
    assert not (tmp_path / "reports-b" / "E3.md").exists()  # the loser quotes no traffic
    assert not list(cassette.parent.glob(".*"))  # no lock file or half recording left
