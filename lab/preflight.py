"""What a recording needs before it sends anything: the checks behind ``ctxlab record`` and
``pytest --record-mode=rewrite``, light to import (no pandas, no experiment), so pytest can
refuse a recording that cannot start with one usage error before any test runs."""

from __future__ import annotations

import os
from collections.abc import Sequence

__all__ = ["KEY_PROBE_TIMEOUT", "preflight", "probe_key"]

KEY_PROBE_TIMEOUT = 10.0
"""Seconds the key probe waits at most for the provider's answer (less when the recording's own
timeouts are shorter); a slow answer proves nothing."""


def preflight(
    ids: Sequence[str],
    provider: str,
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    check_key: bool = True,
    key_timeout: float = 10.0,
) -> None:
    """Raise :class:`~harness.errors.CtxlabError`, in one sentence, when recording ``ids``
    from ``provider`` cannot start: no API key in the provider's variable or one it refuses
    (:func:`probe_key`, within ``key_timeout`` s, unless ``check_key`` is False), or, for
    ``local`` without a base URL, no model part packages (the ``record`` extra), and for
    ``ids`` no llama_cpp or (E4) no llama-server binary. With no ``ids`` only what every
    recording from the provider needs is checked. Sends nothing but the key probe."""
    from harness.errors import MissingAPIKeyError
    from lab.recorder.providers import provider_spec

    if provider != "local" or base_url:
        spec = provider_spec(provider, model=model, base_url=base_url, api_key_env=api_key_env)
        if spec.api_key_env is not None and not os.environ.get(spec.api_key_env, "").strip():
            raise MissingAPIKeyError(spec.api_key_env)
        if check_key and spec.api_key_env is not None:
            probe_key(spec.base_url, spec.api_key_env, key_timeout)
        return
    from lab.recorder.local.modelfile import check_parts, local_model

    check_parts(local_model(model))
    if not ids:
        return  # what the servers need depends on the experiments: checked with them
    from lab.recorder.local.server import SERVER_NAME, check_llama_cpp, find_llama_server
    from lab.registry import EXPERIMENTS

    servers = {
        EXPERIMENTS[i].local_server for i in ids if i in EXPERIMENTS and EXPERIMENTS[i].recordable
    }
    if SERVER_NAME in servers:
        check_llama_cpp()
    if "llama-server" in servers:
        find_llama_server()


def probe_key(base_url: str, env_var: str, timeout: float = KEY_PROBE_TIMEOUT) -> None:
    """Ask ``GET <base_url>/models`` with the key in ``env_var`` (no tokens spent) and raise
    :class:`~lab.errors.RejectedAPIKeyError` when the provider answers 401 or 403, so a
    wrong or expired key fails once, before a recording spends minutes failing request by
    request. Any other answer, or none, proves nothing and the recording goes on (its own
    requests then say what is wrong)."""
    import httpx

    from lab.errors import RejectedAPIKeyError

    key = os.environ.get(env_var, "").strip()
    url = base_url.rstrip("/") + "/models"
    try:
        status = httpx.get(
            url, headers={"Authorization": f"Bearer {key}"}, timeout=min(timeout, KEY_PROBE_TIMEOUT)
        ).status_code
    except httpx.HTTPError:
        return
    if status in (401, 403):
        raise RejectedAPIKeyError(env_var, httpx.URL(url).host, status)
