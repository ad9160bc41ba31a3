"""A replay builds one HTTP transport per process, not one per cassette (an httpx
transport builds an SSL context, about 35 ms, and ``ctxlab run`` built 18 in a replay that never
opens a connection)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from lab.cli import main
from lab.recorder import matching


def test_a_run_that_replays_several_cassettes_builds_one_transport(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[object] = []
    original = httpx.HTTPTransport.__init__

    def counting(self: httpx.HTTPTransport, *args: Any, **kwargs: Any) -> None:
        built.append(self)
        original(self, *args, **kwargs)

    matching.shared_transport.cache_clear()
    monkeypatch.setattr(httpx.HTTPTransport, "__init__", counting)
    try:
        # one process (a worker of --jobs 2 builds its own, once)
        assert main(["run", "E3", "E4", "--jobs", "1", "--out", str(tmp_path / "reports")]) == 0
    finally:
        matching.shared_transport.cache_clear()
    assert len(built) == 1
