"""A recording whose request got no answer on any attempt, while the run went on without it,
is refused (its replay would part ways with the live run); a request answered on a retry is
recorded as usual. Against real HTTP on 127.0.0.1."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.loopback import Reply, ScriptedHTTPServer, say

from harness.errors import ModelError
from harness.messages import Message
from harness.model import ChatRequest
from harness.timeouts import Timeouts
from lab.errors import RecordingIncompleteError
from lab.recorder import cassette_client, provider_spec

QUICK = Timeouts(connect=2, read=0.3, total=3)


class SlowFirst:
    """Stays silent past the read timeout for requests asking ``hang`` (always) or ``slow``
    (the first time only); answers everything else at once."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        text = body["messages"][-1]["content"]
        if text == "hang" or (text == "slow" and "slow" not in self.seen):
            self.seen.append(text)
            time.sleep(1.0)
        self.seen.append(text)
        return say(f"answer to {text}")


def record(
    server: ScriptedHTTPServer,
    path: Path,
    prompts: list[str],
    progress: Callable[[str], None] | None = None,
) -> list[str]:
    spec = provider_spec("openai-compatible", model="m", base_url=server.base_url)
    answers = []
    with cassette_client(
        path, mode="record", provider=spec, timeouts=QUICK, progress=progress
    ) as cassette:
        for prompt in prompts:
            request = ChatRequest(messages=(Message.user(prompt),))
            try:
                answers.append(cassette.client.complete(request).message.content)
            except ModelError:  # an experiment that fails open carries on, as E4's engines do
                answers.append("<failed>")
    return answers


def test_a_request_never_answered_refuses_the_recording_and_writes_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.json"
    refused = pytest.raises(RecordingIncompleteError, match=r"got no answer.*--read-timeout")
    with ScriptedHTTPServer(answer=SlowFirst()) as server, refused:
        record(server, path, ["one", "hang", "two"])
    assert not path.exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # no temp file left either


def test_a_request_answered_on_a_retry_is_recorded_and_replays(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    with ScriptedHTTPServer(answer=SlowFirst()) as server:
        answers = record(server, path, ["one", "slow", "two"])
    assert answers == ["answer to one", "answer to slow", "answer to two"]
    with cassette_client(path, mode="replay") as cassette:
        replayed = [
            cassette.client.complete(ChatRequest(messages=(Message.user(p),))).message.content
            for p in ["one", "slow", "two"]
        ]
    assert replayed == answers


def test_a_retry_is_shown_as_an_attempt_of_its_request_not_as_a_new_request(
    tmp_path: Path,
) -> None:
    lines: list[str] = []
    with ScriptedHTTPServer(answer=SlowFirst()) as server:
        record(server, tmp_path / "c.json", ["one", "slow", "two", "one"], lines.append)
    shown = [line.split(" in ")[0] for line in lines]
    assert shown == [
        "  request 1 → 200",
        "  request 2, attempt 1: no answer; retrying",  # shown without -v
        "  request 2, attempt 2 → 200",
        "  request 3 → 200",
        "  request 4 → 200",  # the same body again after an answer: a new request
    ]


NEVER_IN_TIME = Timeouts(connect=2, read=0.1, total=3)
"""For a server that never answers within the read timeout: no answer can come too late under
load, so the wait the test pays for can be short."""


class Arrivals:
    """Counts the requests that reach the server; stays silent past the read timeout."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        self.count += 1
        time.sleep(1.0)
        return say("late")


def test_ctxlabs_own_local_server_gets_no_retry_after_a_timeout(tmp_path: Path) -> None:
    # llama.cpp goes on writing the answer nobody waits for: a retry only queues behind it.
    for provider, arrivals in (("local", 1), ("openai-compatible", 3)):
        answer = Arrivals()
        with ScriptedHTTPServer(answer=answer) as server:
            spec = provider_spec(provider, model="m", base_url=server.base_url)
            path = tmp_path / f"{provider}.json"
            with (
                pytest.raises(RecordingIncompleteError),
                cassette_client(
                    path, mode="record", provider=spec, timeouts=NEVER_IN_TIME
                ) as cassette,
                pytest.raises(ModelError),
            ):
                cassette.client.complete(ChatRequest(messages=(Message.user("q"),)))
        assert answer.count == arrivals, provider
