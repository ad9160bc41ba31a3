"""The autouse guard in conftest.py really stops unplanned network calls."""

from __future__ import annotations

import socket

import httpx
import pytest

from harness.client import ChatClient, RetryPolicy
from harness.errors import APIConnectionError
from harness.messages import Message
from harness.model import ChatRequest


def test_a_socket_to_a_public_address_fails() -> None:
    with socket.socket() as sock, pytest.raises(AssertionError, match="unplanned network call"):
        sock.connect(("93.184.216.34", 80))


def test_the_default_deepseek_client_cannot_reach_the_internet() -> None:
    client = ChatClient(api_key="sk-test", retry=RetryPolicy(max_retries=0), timeout=2)
    request = ChatRequest(messages=(Message.user("hi"),))
    with pytest.raises((AssertionError, APIConnectionError, httpx.HTTPError)):
        client.complete(request)


def test_loopback_is_allowed() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.socket() as client:
            client.connect(server.getsockname())
