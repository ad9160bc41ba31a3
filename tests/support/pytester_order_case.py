"""Run by tests/project/test_pytester_isolation.py in a process of its own, not collected by the
suite (its name does not start with ``test_``): an in-process pytester run makes the process's
first HTTP client, then a test after it must still get the harness's typed error."""

from __future__ import annotations

import socket

import pytest

from harness.client import ChatClient, RetryPolicy
from harness.errors import APIConnectionError
from harness.messages import Message
from harness.model import ChatRequest

INNER = """
import pytest
from harness.client import ChatClient, RetryPolicy
from harness.errors import APIConnectionError
from harness.messages import Message
from harness.model import ChatRequest

def test_inner():
    client = ChatClient(
        "m", base_url="http://127.0.0.1:{port}/v1", api_key="sk-x", retry=RetryPolicy(max_retries=0)
    )
    with pytest.raises(APIConnectionError):
        client.complete(ChatRequest((Message.user("hi"),)))
"""


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_1_an_inline_run_makes_the_first_client(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_inner=INNER.replace("{port}", str(_closed_port())))
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_2_a_later_test_still_gets_the_typed_error() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    client = ChatClient("m", base_url=url, api_key="sk-x", retry=RetryPolicy(max_retries=0))
    with pytest.raises(APIConnectionError):
        client.complete(ChatRequest((Message.user("hi"),)))
