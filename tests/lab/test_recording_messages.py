"""What a recording says: a wrong or expired key fails once, in one sentence naming the variable
to fix, before a recording spends minutes (``ctxlab record`` asks the provider ``GET /models``
first), and the wait a 429's ``Retry-After`` asks for is printed.

Against a real HTTP server on 127.0.0.1 that answers 401 to everything. Before the probe a wrong
key under ``pytest --record-mode=rewrite`` took 220 s and gave 49 failures, each repeating the
same 401 sentence.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from support.loopback import QuietHTTPServer, RawServer
from support.paths import ROOT

from lab.cli import main
from lab.errors import RejectedAPIKeyError
from lab.preflight import probe_key


def _unauthorized() -> bytes:
    body = b'{"error":{"message":"Authentication Fails, Your api key is invalid"}}'
    head = (
        "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


def test_ctxlab_record_with_a_wrong_key_fails_once_naming_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-wrong-0123456789abcdef")
    with RawServer(_unauthorized()) as server:
        started = time.monotonic()
        status = main(
            ["record", "E3", "--provider", "deepseek", "--base-url", server.base_url,
             "--cassettes", str(tmp_path / "cassettes"), "--out", str(tmp_path / "reports")]
        )  # fmt: skip
        took = time.monotonic() - started
        asked = len(server.accepted)
    said = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and took < 15
    assert len(said) == 1, said
    assert "refused the API key in DEEPSEEK_API_KEY (401)" in said[0]
    assert "sk-wrong" not in said[0]
    assert asked == 1  # the probe alone: no experiment's request was sent
    assert not (tmp_path / "cassettes").exists()


def test_a_probe_that_proves_nothing_lets_the_recording_go_on() -> None:
    """Only 401 and 403 are decisive: a provider without ``/models`` (404), a server error or
    no server at all is left to the recording's own requests to report."""
    not_found = _unauthorized().replace(b"401 Unauthorized", b"404 Not Found")
    with RawServer(not_found) as server:
        probe_key(server.base_url, "PATH")  # any variable with a value
    probe_key("http://127.0.0.1:9/v1", "PATH")  # nothing listens on port 9
    forbidden = _unauthorized().replace(b"401 Unauthorized", b"403 Forbidden")
    with RawServer(forbidden) as server, pytest.raises(RejectedAPIKeyError, match=r"\(403\)"):
        probe_key(server.base_url, "PATH")


class _RateLimitedThenRefused(BaseHTTPRequestHandler):
    """``GET /models``: 404 (proves nothing); the first chat request: 429 with ``Retry-After:
    0``; every later one: 401, which ends the recording at once."""

    posts = 0

    def do_GET(self) -> None:
        self._answer(404, {})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        type(self).posts += 1
        if type(self).posts == 1:
            self._answer(429, {"Retry-After": "0"})
        else:
            self._answer(401, {})

    def _answer(self, status: int, headers: dict[str, str]) -> None:
        body = b'{"error":{"message":"no"}}'
        self.send_response(status)
        for name, value in {**headers, "Content-Length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_ctxlab_record_prints_the_wait_a_retry_after_asks_for(tmp_path: Path) -> None:
    """The client waited for ``Retry-After`` without a word: the line was a log record below
    the CLI's level."""
    server = QuietHTTPServer(("127.0.0.1", 0), _RateLimitedThenRefused)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "experiments", "record", "E3", "--provider",
             "deepseek", "--base-url", f"http://127.0.0.1:{server.server_port}/v1",
             "--cassettes", str(tmp_path / "c"), "--out", str(tmp_path / "r")],
            capture_output=True, text=True, cwd=ROOT, timeout=120,
            env={**os.environ, "DEEPSEEK_API_KEY": "sk-wrong-0123456789abcdef"},
        )  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 2, done.stderr
    assert "returned 429; retry 1 of" in done.stderr, done.stderr
    assert "in 0.00s (as the server's Retry-After asks)" in done.stderr


def test_a_dependent_that_cannot_replay_a_new_set_says_what_it_lacks(tmp_path: Path) -> None:
    """After recording E3 for a new set, X-GATE (which replays E3's gate variant) and X-COST
    (which needs E4 too) wrote no row for it and said nothing."""
    from lab.recording import unreplayed_sets

    cassettes = tmp_path / "cassettes"
    old = cassettes / "E3" / "old-set"
    old.mkdir(parents=True)
    (old / "rounds.json").write_text("{}")
    os.utime(old / "rounds.json", (1_000_000, 1_000_000))  # recorded long ago
    started = time.time()
    new = cassettes / "E3" / "deepseek-deepseek-flash"
    new.mkdir()
    (new / "rounds.json").write_text("{}")
    lines = unreplayed_sets(["E3"], cassettes, started)
    assert lines == [
        "X-GATE wrote no row for deepseek-deepseek-flash: it replays "
        "E3/deepseek-deepseek-flash/rounds-gate.json, which this set does not hold (record it "
        "to add the row)",
        "X-COST wrote no row for deepseek-deepseek-flash: it replays "
        "E4/deepseek-deepseek-flash/compactions.json, which this set does not hold (record it "
        "to add the row)",
    ]
    (new / "rounds-gate.json").write_text("{}")
    assert [line.split(" ")[0] for line in unreplayed_sets(["E3"], cassettes, started)] == [
        "X-COST"
    ]
