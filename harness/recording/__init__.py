"""Recorded model traffic: replay cassettes offline, re-record them live.

* :mod:`~harness.recording.providers`: where live traffic comes from (DeepSeek, a local
  llama.cpp server, any OpenAI-compatible server).
* :mod:`~harness.recording.cassette`: :func:`cassette_client`, a chat client that replays or
  records one vcrpy cassette, with provenance and secret filtering.
* :mod:`~harness.recording.format`: the cassette file (JSON, bodies stored parsed).
* :mod:`~harness.recording.matching`: how replayed requests match recorded ones, and what a
  mismatch says.
* :mod:`~harness.recording.secrets`: the secret scanner every recorded cassette passes.
* :mod:`~harness.recording.localserver`: the local model and its deterministic server.
"""

from __future__ import annotations

from harness.recording.cassette import (
    CassetteClient,
    Provenance,
    cassette_client,
    read_provenance,
)
from harness.recording.localserver import (
    QWEN_1_5B,
    LocalModel,
    ServerInfo,
    assemble_model,
    local_server,
)
from harness.recording.providers import PROVIDERS, ProviderSpec, provider_spec
from harness.recording.secrets import scan_file, scan_text

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
