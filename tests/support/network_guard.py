"""No test may reach the network unless it talks to this machine.

Tests run real HTTP against servers on 127.0.0.1, and cassettes replay without any socket; a
connection to any other address is an unplanned network call and raises
:class:`UnplannedNetworkCall` at once. :func:`install` guards ``socket.socket.connect`` and
``connect_ex`` for the whole test process (the root ``conftest.py`` calls it before any test).

It was an autouse fixture that set the same guard with ``monkeypatch`` before each test: with
about 3,000 tests per run, that fixture's setup and teardown were 0.4 ms of CPU a test (1.2 s
for 3,000 empty tests, ``pytest -n 0``), for a guard that never changes between tests. A test
that patches ``socket.socket.connect`` itself (with ``monkeypatch``) gets the guarded one back.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from typing import Any

__all__ = ["UnplannedNetworkCall", "install", "is_loopback"]


class UnplannedNetworkCall(AssertionError):
    """A test tried to connect somewhere other than this machine."""


def is_loopback(address: Any) -> bool:
    """Whether ``address`` (as ``socket.connect`` takes it) is on this machine."""
    if isinstance(address, (str, bytes)):  # a unix socket path
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded(real: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(self: socket.socket, address: Any) -> Any:
        if not is_loopback(address):
            raise UnplannedNetworkCall(f"unplanned network call to {address!r}")
        return real(self, address)

    guarded.__wrapped__ = real  # type: ignore[attr-defined]
    return guarded


def install() -> Callable[[], None]:
    """Guard every socket's ``connect`` and ``connect_ex`` in this process (once: a second call
    changes nothing); the function returned takes the guard off."""
    originals = {name: getattr(socket.socket, name) for name in ("connect", "connect_ex")}
    if all(hasattr(real, "__wrapped__") for real in originals.values()):
        return lambda: None
    for name, real in originals.items():
        setattr(socket.socket, name, _guarded(real))

    def uninstall() -> None:
        for name, real in originals.items():
            setattr(socket.socket, name, real)

    return uninstall
