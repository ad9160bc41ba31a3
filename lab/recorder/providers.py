"""Where recorded traffic comes from: DeepSeek, a local llama.cpp server, or any
OpenAI-compatible server.

A :class:`ProviderSpec` separates the URL requests really go to while recording (``base_url``,
possibly ``http://127.0.0.1:PORT/v1``) from the URL the cassette stores and replay uses
(``public_base_url``), which never carries a loopback address or port, so cassettes do not
depend on the machine or run that recorded them.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from harness import ConfigError
from harness.client import DEFAULT_BASE_URL, DEFAULT_MODEL

__all__ = [
    "LOCAL_MODEL",
    "PROVIDERS",
    "ProviderSpec",
    "is_loopback_url",
    "provider_spec",
    "public_url",
]

PROVIDERS = ("deepseek", "local", "openai-compatible")
"""The provider names :func:`provider_spec` knows."""
LOCAL_MODEL = "qwen2.5-coder-1.5b-instruct-q4_k_m"
"""The model the local server serves by default."""
LOCAL_PUBLIC_BASE_URL = "http://localhost/v1"
"""What cassettes recorded against the local server store as their base URL."""


@dataclass(frozen=True)
class ProviderSpec:
    """A live model endpoint to record from."""

    name: str
    """``deepseek``, ``local`` or ``openai-compatible``."""
    model: str
    """The model asked for in every request."""
    base_url: str
    """Where requests go while recording (may be loopback)."""
    public_base_url: str
    """What the cassette stores and replay uses; never a loopback host with a port."""
    api_key_env: str | None
    """The environment variable holding the API key; None when no key is needed."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Extra body fields sent on every request (temperature, seed, thinking mode, ...)."""


def provider_spec(
    name: str,
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
) -> ProviderSpec:
    """The :class:`ProviderSpec` for provider ``name``, with the given overrides.

    Raises :class:`ConfigError` for an unknown provider, or when ``local`` or
    ``openai-compatible`` lacks its base URL (and, for ``openai-compatible``, its model).
    ``openai-compatible`` reads its key from ``OPENAI_API_KEY`` unless ``api_key_env`` names
    another variable, or needs none when its base URL is on this machine.
    """
    builders = {"deepseek": _deepseek, "local": _local, "openai-compatible": _compatible}
    if name not in builders:
        known = ", ".join(PROVIDERS)
        raise ConfigError(f"Unknown provider {name!r}; the known providers are {known}.")
    return builders[name](model, base_url, api_key_env)


def public_url(base_url: str) -> str:
    """``base_url`` as a cassette may store it: no trailing slash, no user or password, and a
    loopback host (with its port) made ``localhost``, so ``http://127.0.0.1:8011/v1`` becomes
    ``http://localhost/v1``."""
    parts = urlsplit(base_url.rstrip("/"))
    host = parts.hostname or ""
    if _is_loopback(host):
        netloc = "localhost"
    else:
        netloc = f"[{host}]" if ":" in host else host
        netloc += f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=netloc))


def is_loopback_url(url: str) -> bool:
    """Whether ``url`` points at this machine (127.0.0.0/8, ::1, localhost)."""
    return _is_loopback(urlsplit(url).hostname or "")


def _deepseek(model: str | None, base_url: str | None, api_key_env: str | None) -> ProviderSpec:
    return ProviderSpec(
        name="deepseek",
        model=model or DEFAULT_MODEL,
        base_url=(base_url or os.environ.get("DEEPSEEK_BASE_URL") or DEFAULT_BASE_URL).rstrip("/"),
        public_base_url=DEFAULT_BASE_URL,
        api_key_env=api_key_env or "DEEPSEEK_API_KEY",
        params={"temperature": 0, "thinking": {"type": "disabled"}},
    )


def _local(model: str | None, base_url: str | None, api_key_env: str | None) -> ProviderSpec:
    if not base_url:
        raise ConfigError(
            "The local provider needs the base URL of a running server "
            "(start one with lab.recorder.local_server)."
        )
    return ProviderSpec(
        name="local",
        model=model or LOCAL_MODEL,
        base_url=base_url.rstrip("/"),
        public_base_url=LOCAL_PUBLIC_BASE_URL,
        api_key_env=api_key_env,
        params={"temperature": 0, "seed": 42},
    )


def _compatible(model: str | None, base_url: str | None, api_key_env: str | None) -> ProviderSpec:
    if not base_url or not model:
        missing = " and ".join(
            n for n, v in (("--base-url", base_url), ("--model", model)) if not v
        )
        raise ConfigError(f"The openai-compatible provider needs {missing}.")
    return ProviderSpec(
        name="openai-compatible",
        model=model,
        base_url=base_url.rstrip("/"),
        public_base_url=public_url(base_url),
        # A server on this machine (llama.cpp, vLLM, ...) usually needs no key.
        api_key_env=api_key_env or (None if is_loopback_url(base_url) else "OPENAI_API_KEY"),
        params={"temperature": 0},
    )


def _is_loopback(host: str) -> bool:
    if host in ("localhost", "0.0.0.0"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
