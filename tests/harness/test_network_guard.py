"""The network guard (tests/support/network_guard.py, installed by the root conftest.py for the
whole test process, with no fixture) really stops unplanned network calls."""

from __future__ import annotations

import socket

import httpx
import pytest
from support import network_guard
from support.network_guard import UnplannedNetworkCall

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


def test_connect_ex_is_guarded_too() -> None:
    with socket.socket() as sock, pytest.raises(UnplannedNetworkCall, match=r"192\.0\.2\.1"):
        sock.connect_ex(("192.0.2.1", 9))  # TEST-NET-1 (RFC 5737): never a real host


def test_installing_twice_wraps_once_and_its_undo_leaves_the_guard() -> None:
    guarded = socket.socket.connect
    assert hasattr(guarded, "__wrapped__")  # the root conftest installed it
    network_guard.install()()  # a second install changes nothing, so its undo neither
    assert socket.socket.connect is guarded


@pytest.mark.parametrize(
    ("address", "loopback"),
    [
        (("127.0.0.1", 80), True),
        (("::1", 80, 0, 0), True),
        (("localhost", 80), True),
        ("/tmp/some.sock", True),
        (("10.0.0.1", 80), False),
        (("example.com", 443), False),
    ],
)
def test_only_this_machine_counts_as_loopback(address: object, loopback: bool) -> None:
    assert network_guard.is_loopback(address) is loopback
