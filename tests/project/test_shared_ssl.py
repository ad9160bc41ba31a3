"""The test processes' SSL contexts (tests/support/shared_ssl.py): the default one made once and
shared by every httpx client; any other asked for is made as before."""

from __future__ import annotations

import ssl

import httpx
import httpx._transports.default as transports
import pytest
from support.shared_ssl import SharedContext


def test_default_clients_share_one_context_and_the_rest_get_their_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    shared = SharedContext(transports.create_ssl_context.make)  # type: ignore[attr-defined]
    monkeypatch.setattr(transports, "create_ssl_context", shared)
    with httpx.Client() as first, httpx.Client(trust_env=False) as second:
        assert shared.made == 1 and shared.context is not None
        assert shared.context.verify_mode == ssl.CERT_REQUIRED and shared.context.check_hostname
        del first, second
    unverified = shared(verify=False)
    assert unverified is not shared.context and unverified.verify_mode == ssl.CERT_NONE
    own = ssl.create_default_context()
    assert shared(verify=own) is own
    monkeypatch.setenv("SSL_CERT_DIR", "/nonexistent")
    assert shared() is not shared.context  # the environment's bundle: made as httpx makes it
    assert shared.made == 1


def test_the_session_installs_it() -> None:
    assert isinstance(transports.create_ssl_context, SharedContext)
