"""What opening a cassette for replay costs: the file read and parsed once (for the seal, the
provenance and vcrpy alike), no copy of a recorded request as the cassette loads, and no recorded
body parsed again for matching (its canonical form is written from the JSON the file holds)."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from vcr.request import Request as VcrRequest

from harness import json_depth
from lab.recorder import cassette_client, matching
from lab.recorder.format import decode_body

PROJECT = Path(__file__).resolve().parents[2]
SMALL = "local-qwen2.5-coder-1.5b-instruct-q4_k_m/en-2k-s01--truncation.json"
"""A recorded cassette of one request (the project's smallest)."""


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    """A copy of the project's smallest recorded cassette."""
    path = tmp_path / "one.json"
    shutil.copyfile(PROJECT / "cassettes" / "X-BENCH" / SMALL, path)
    return path


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every JSON text parsed from here on (the file's, and each body matched), in order."""
    texts: list[str] = []
    real_loads = json_depth.loads
    monkeypatch.setattr(json_depth, "loads", lambda text: texts.append(text) or real_loads(text))
    return texts


def test_a_replayed_cassette_is_parsed_once_and_its_requests_not_copied(
    cassette: Path, parsed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = json.loads(cassette.read_text(encoding="utf-8"))["interactions"][0]["request"]
    payload = decode_body(recorded["body"])
    assert isinstance(payload, str)
    copies: list[object] = []
    real_deepcopy = copy.deepcopy
    monkeypatch.setattr(copy, "deepcopy", lambda x, *a: copies.append(x) or real_deepcopy(x, *a))
    with cassette_client(cassette, mode="replay") as replay:
        assert replay.provenance.requests == 1
        assert len(parsed) == 1  # the file, once, for the seal, the provenance and vcrpy
        replay.client._send(payload.encode("utf-8"))
    assert not [c for c in copies if type(c).__name__ == "Request"]
    # the request made is the recorded one byte for byte: neither is parsed again
    assert len(parsed) == 1


def test_an_order_replay_reads_its_cassette_once(cassette: Path, parsed: list[str]) -> None:
    with cassette_client(cassette, mode="replay", match="order") as replay:
        reply = replay.client._send(b'{"anything": "at all"}')
    assert reply and len(parsed) == 1  # the file, for the seal, the provenance and the answers


def test_a_request_equal_as_json_but_spelled_otherwise_is_parsed_and_matched(
    cassette: Path, parsed: list[str]
) -> None:
    recorded = json.loads(cassette.read_text(encoding="utf-8"))["interactions"][0]["request"]
    spaced = json.dumps(recorded["body"]["json"], ensure_ascii=False, indent=1).encode("utf-8")
    assert spaced != decode_body(recorded["body"])
    with cassette_client(cassette, mode="replay") as replay:
        replay.client._send(spaced)
    assert parsed[1:] == [spaced]  # after the file's: the request made, once


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=12,
)


@given(st.dictionaries(st.text(max_size=4), JSON, max_size=4), st.sampled_from(["", "spaced"]))
def test_a_remembered_canonical_body_is_the_one_parsing_gives(value: dict, style: str) -> None:
    stored = {"json": value, "style": style} if style else {"json": value}
    request = VcrRequest("POST", "http://x/v1/chat/completions", decode_body(stored), {})
    matching.remember_canonical(request, value)
    remembered = matching.canonical_body(request)
    assert remembered == matching._canonical(json.loads(request.body))
