"""What opening a cassette for replay costs: the file read and parsed once (for the seal, the
provenance and vcrpy alike), and no copy of a recorded request as the cassette loads."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest

from harness import json_depth
from lab.errors import CassetteMismatchError
from lab.recorder import cassette_client
from lab.recorder import format as cassette_format

PROJECT = Path(__file__).resolve().parents[2]
SMALL = "local-qwen2.5-coder-1.5b-instruct-q4_k_m/en-2k-s01--truncation.json"
"""A recorded cassette of one request (the project's smallest)."""


def test_a_replayed_cassette_is_parsed_once_and_its_requests_not_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "one.json"
    shutil.copyfile(PROJECT / "cassettes" / "X-BENCH" / SMALL, path)
    parsed: list[int] = []
    real_loads = json_depth.loads
    monkeypatch.setattr(
        cassette_format.json_depth, "loads", lambda text: parsed.append(1) or real_loads(text)
    )
    copies: list[object] = []
    real_deepcopy = copy.deepcopy
    monkeypatch.setattr(copy, "deepcopy", lambda x, *a: copies.append(x) or real_deepcopy(x, *a))
    with (
        pytest.raises(CassetteMismatchError, match="1 recorded request was never made"),
        cassette_client(path, mode="replay") as cassette,
    ):
        assert cassette.provenance.requests == 1
        assert len(parsed) == 1
        assert not [c for c in copies if type(c).__name__ == "Request"]
