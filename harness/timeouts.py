"""How long the chat client waits: to connect, between two bytes of an answer, and in all.

``total`` bounds one :meth:`~harness.client.ChatClient.complete` call as a whole, every retry
and every backoff pause included: a server that accepts the connection and never answers fails
with :class:`~harness.errors.APITimeoutError` after at most ``total`` seconds, however many
attempts the retry policy allows. ``connect`` and ``read`` bound each attempt (``read`` is the
longest silence between two bytes; DeepSeek keeps a slow answer alive with blank lines).

The defaults can be changed per process with the environment variables ``CTXLAB_TIMEOUT``
(total), ``CTXLAB_CONNECT_TIMEOUT`` and ``CTXLAB_READ_TIMEOUT`` (seconds), and per command with
``ctxlab record|compact --timeout / --connect-timeout / --read-timeout``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace

import httpx

from harness.errors import ConfigError
from harness.validation import seconds

__all__ = ["ENV_VARS", "Timeouts"]

ENV_VARS: dict[str, str] = {
    "total": "CTXLAB_TIMEOUT",
    "connect": "CTXLAB_CONNECT_TIMEOUT",
    "read": "CTXLAB_READ_TIMEOUT",
}
"""The environment variable that sets each timeout."""


@dataclass(frozen=True)
class Timeouts:
    """The client's timeouts in seconds; each must be finite and positive."""

    connect: float = 10.0
    """Longest wait for a connection to open."""
    read: float = 120.0
    """Longest silence between two bytes of an answer (and for sending the request)."""
    total: float = 600.0
    """Longest time one ``complete`` call may take, all retries and pauses included."""

    def __post_init__(self) -> None:
        for name in ("connect", "read", "total"):
            object.__setattr__(self, name, seconds(f"{name} timeout", getattr(self, name)))

    @classmethod
    def uniform(cls, value: float) -> Timeouts:
        """Every timeout set to ``value`` (what a plain number of seconds means)."""
        return cls(connect=value, read=value, total=value)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Timeouts:
        """The defaults, overridden by the ``CTXLAB_*TIMEOUT`` environment variables."""
        environ = os.environ if environ is None else environ
        values = {}
        for name, var in ENV_VARS.items():
            if raw := environ.get(var, "").strip():
                values[name] = _env_seconds(var, raw)
        return cls(**values)

    def updated(self, **values: float | None) -> Timeouts:
        """A copy with the values that are not None replaced (CLI options over defaults)."""
        return replace(self, **{name: v for name, v in values.items() if v is not None})

    def attempt(self, remaining: float) -> httpx.Timeout:
        """The httpx timeout of one attempt when ``remaining`` seconds are left in total."""
        remaining = max(remaining, 0.001)
        connect, read = min(self.connect, remaining), min(self.read, remaining)
        return httpx.Timeout(connect=connect, read=read, write=read, pool=connect)


def _env_seconds(var: str, raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{var} must be a number of seconds, not {raw!r}.") from None
    try:
        return seconds(var, value)
    except ConfigError:
        raise ConfigError(
            f"{var} must be a finite number of seconds above 0, not {raw!r}."
        ) from None
