"""One default SSL context per test process, shared by every httpx client the tests make.

Each ``httpx.Client()`` (a provider's client, a recorder's, a loopback server's probe) builds its
transport's SSL context, and the default one loads certifi's whole CA bundle: about 25 ms of CPU
idle (``ssl.create_default_context(cafile=certifi.where())``), 100 ms under load in a cProfile
of tests/lab, for a context no test uses (they speak plain HTTP to 127.0.0.1, or replay without
a socket). :func:`install` wraps the function httpx's transports call
(``httpx._transports.default.create_ssl_context``) so that the default request (``verify=True``,
no ``cert``, no ``SSL_CERT_FILE``/``SSL_CERT_DIR`` in the environment) gets one context made
once; any other request is made as before. An SSL context is made to be shared by many
connections, and the shared one verifies against the same bundle.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable
from typing import Any

import httpx._transports.default as transports

Make = Callable[..., ssl.SSLContext]
BUNDLE_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR")
"""The environment's own CA bundle, which httpx reads instead of certifi's (with ``trust_env``)."""


class SharedContext:
    """The wrapper of ``create_ssl_context``: the default context made once."""

    def __init__(self, make: Make) -> None:
        self.make = make
        self.context: ssl.SSLContext | None = None
        self.made = 0
        """Default contexts made (for its own tests)."""

    def __call__(
        self, verify: Any = True, cert: Any = None, trust_env: bool = True
    ) -> ssl.SSLContext:
        own_bundle = trust_env and (
            os.environ.get("SSL_CERT_FILE") or os.environ.get("SSL_CERT_DIR")
        )
        if verify is not True or cert is not None or own_bundle:
            return self.make(verify=verify, cert=cert, trust_env=trust_env)
        if self.context is None:
            self.made += 1
            self.context = self.make(verify=True, cert=None, trust_env=trust_env)
        return self.context


def install() -> Callable[[], None]:
    """Share the default context in this process; the function returned stops it."""
    original = transports.create_ssl_context
    transports.create_ssl_context = SharedContext(original)  # type: ignore[assignment]

    def uninstall() -> None:
        transports.create_ssl_context = original

    return uninstall


__all__ = ["SharedContext", "install"]
