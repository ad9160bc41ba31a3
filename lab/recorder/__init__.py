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
