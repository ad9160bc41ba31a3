"""The test processes' retry backoff (tests/support/quick_retries.py): a client made without a
``sleep`` of its own waits at most ``LONGEST`` between attempts, still retries as often, and
``CTXLAB_TESTS_BACKOFF=real`` keeps the real waits."""

from __future__ import annotations

import os
import time

import pytest
from support import quick_retries
from support.loopback import ScriptedHTTPServer, say

from harness.client import ChatClient
from harness.messages import Message
from harness.model import ChatRequest


@pytest.mark.skipif(os.environ.get(quick_retries.SWITCH) == "real", reason="the real waits kept")
def test_the_session_caps_the_backoff_and_retries_as_often(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    slept: list[float] = []
    real_sleep = time.sleep
    monkeypatch.setattr(time, "sleep", lambda s: (slept.append(s), real_sleep(s))[1])
    unavailable = (503, b'{"error": {"message": "busy"}}', "application/json")
    with ScriptedHTTPServer([unavailable, unavailable, say("ok")]) as server:
        client = ChatClient("m", base_url=server.base_url, api_key="test-key-1234")
        reply = client.complete(ChatRequest(messages=(Message.user("hi"),)))
        client.close()
        assert reply.message.content == "ok" and len(server.bodies) == 3
    assert slept == [quick_retries.LONGEST, quick_retries.LONGEST]  # asked 0.5 s, then 1 s


def test_the_switch_keeps_the_real_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    defaults = ChatClient.__init__.__kwdefaults__
    assert defaults is not None
    monkeypatch.setitem(defaults, "sleep", time.sleep)
    monkeypatch.setenv(quick_retries.SWITCH, "real")
    quick_retries.install()()
    assert defaults["sleep"] is time.sleep
    monkeypatch.delenv(quick_retries.SWITCH)
    uninstall = quick_retries.install()
    assert defaults["sleep"] is quick_retries.short_sleep
    uninstall()
    assert defaults["sleep"] is time.sleep
