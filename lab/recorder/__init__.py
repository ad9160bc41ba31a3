"""Recorded model traffic: replay cassettes offline, re-record them live.

* :mod:`~lab.recorder.providers`: where live traffic comes from (DeepSeek, a local
  llama.cpp server, any OpenAI-compatible server).
* :mod:`~lab.recorder.cassette`: :func:`cassette_client`, a chat client that replays or
  records one vcrpy cassette, with provenance and secret filtering.
* :mod:`~lab.recorder.format`: the cassette file (JSON, bodies stored parsed).
* :mod:`~lab.recorder.matching`: how replayed requests match recorded ones, and what a
  mismatch says.
* the secret scanner every recorded cassette passes is :mod:`harness.secrets` (re-exported here).
* :mod:`~lab.recorder.local`: the local recording stack (the model file, the llama.cpp server,
  its deterministic launcher).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.secrets import scan_file, scan_text
    from lab.recorder.cassette import (
        CassetteClient,
        Provenance,
        cassette_client,
        read_provenance,
    )
    from lab.recorder.local.server import (
        QWEN_1_5B,
        LocalModel,
        ServerInfo,
        assemble_model,
        local_server,
    )
    from lab.recorder.providers import PROVIDERS, ProviderSpec, provider_spec

# imported on first use (PEP 562): a command that asks only for a provider (``ctxlab compact``
# with a live model) loads neither vcrpy nor the cassette code
_SOURCES = {
    "scan_file": "harness.secrets",
    "scan_text": "harness.secrets",
    "CassetteClient": "lab.recorder.cassette",
    "Provenance": "lab.recorder.cassette",
    "cassette_client": "lab.recorder.cassette",
    "read_provenance": "lab.recorder.cassette",
    "QWEN_1_5B": "lab.recorder.local.server",
    "LocalModel": "lab.recorder.local.server",
    "ServerInfo": "lab.recorder.local.server",
    "assemble_model": "lab.recorder.local.server",
    "local_server": "lab.recorder.local.server",
    "PROVIDERS": "lab.recorder.providers",
    "ProviderSpec": "lab.recorder.providers",
    "provider_spec": "lab.recorder.providers",
}

__all__ = [
    "PROVIDERS",
    "QWEN_1_5B",
    "CassetteClient",
    "LocalModel",
    "Provenance",
    "ProviderSpec",
    "ServerInfo",
    "assemble_model",
    "cassette_client",
    "local_server",
    "provider_spec",
    "read_provenance",
    "scan_file",
    "scan_text",
]


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module 'lab.recorder' has no attribute {name!r}")
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
