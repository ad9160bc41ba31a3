"""Sealed cassettes: an edited response text or usage figure, a wrong
request count, a null body or a missing status is refused with one sentence; sealing is done by
code, from the file, and never changes the interactions."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.paths import ROOT

from lab.cassette_sets import DEFAULT_SET
from lab.cli import main
from lab.errors import CassetteError, CassetteTamperedError
from lab.recorder.seal import (
    DIGEST_KEY,
    check_cassette,
    interactions_digest,
    seal_cassette,
)

PROJECT_ROOT = ROOT
SHIPPED = PROJECT_ROOT / "cassettes" / "E3" / DEFAULT_SET / "rounds.json"

Edit = Callable[[dict[str, Any]], None]


def copy_of_e3(tmp_path: Path) -> Path:
    target = tmp_path / "cassettes" / "E3" / "rounds.json"
    target.parent.mkdir(parents=True)
    shutil.copyfile(SHIPPED, target)
    return target


def edit(path: Path, change: Edit) -> Path:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def first_reply(data: dict[str, Any]) -> dict[str, Any]:
    reply: dict[str, Any] = data["interactions"][0]["response"]["body"]["json"]
    return reply


def run_e3(tmp_path: Path) -> int:
    return main(
        ["run", "E3", "--cassettes", str(tmp_path / "cassettes"), "--out", str(tmp_path / "r")]
    )


def one_sentence(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The one sentence ``ctxlab run E3`` refuses the cassettes under ``tmp_path`` with."""
    assert run_e3(tmp_path) == 2
    return one_sentence(capsys.readouterr().err)


def test_the_shipped_cassettes_are_sealed() -> None:
    for path in sorted((PROJECT_ROOT / "cassettes").rglob("*.json")):
        check_cassette(path)


def set_text(data: dict[str, Any]) -> None:
    first_reply(data)["choices"][0]["message"]["content"] = "收到。"


def set_usage(data: dict[str, Any]) -> None:
    first_reply(data)["usage"]["completion_tokens"] += 1


def set_count(data: dict[str, Any]) -> None:
    data["provenance"]["requests"] += 1


EDITS: dict[str, tuple[Edit, str]] = {
    "response text": (set_text, "was edited after it was recorded"),
    "usage figure": (set_usage, "was edited after it was recorded"),
    "request count": (set_count, "says it holds 9 requests but holds 8"),
}


@pytest.mark.parametrize(("change", "expected"), EDITS.values(), ids=EDITS.keys())
def test_an_edited_cassette_is_refused_with_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Edit, expected: str
) -> None:
    path = copy_of_e3(tmp_path)
    assert run_e3(tmp_path) == 0  # the untouched copy replays
    capsys.readouterr()
    edit(path, change)
    line = refusal(tmp_path, capsys)
    assert line.startswith(f"ctxlab: E3 could not run: Cassette {path} ")
    assert expected in line
    with pytest.raises(CassetteTamperedError):
        check_cassette(path)


def null_body(data: dict[str, Any]) -> None:
    data["interactions"][2]["response"]["body"] = None


def no_status(data: dict[str, Any]) -> None:
    del data["interactions"][2]["response"]["status"]


def no_response(data: dict[str, Any]) -> None:
    del data["interactions"][0]["response"]


def interactions_null(data: dict[str, Any]) -> None:
    data["interactions"] = None


BROKEN: dict[str, tuple[Edit, str]] = {
    "null body": (null_body, "interaction 3 has a response whose body is null"),
    "no status": (no_status, "interaction 3 has a response without a status code"),
    "no response": (no_response, "interaction 1 lacks its request or its response"),
    "null interactions": (interactions_null, "has no list of interactions"),
}


@pytest.mark.parametrize(("change", "expected"), BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_cassette_gives_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Edit, expected: str
) -> None:
    path = edit(copy_of_e3(tmp_path), change)
    line = refusal(tmp_path, capsys)
    assert expected in line and str(path) in line


def test_a_cassette_that_is_null_gives_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = copy_of_e3(tmp_path)
    path.write_text("null\n", encoding="utf-8")
    assert "is not a JSON object" in refusal(tmp_path, capsys)


def test_sealing_adds_only_the_digest_and_then_replay_accepts_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = edit(copy_of_e3(tmp_path), lambda data: data["provenance"].pop(DIGEST_KEY))
    unsealed = path.read_text(encoding="utf-8")
    assert "is not sealed" in refusal(tmp_path, capsys)

    assert main(["cassettes", "seal", str(path)]) == 0
    assert capsys.readouterr().out == f"{path}: sealed\n1 of 1 cassettes sealed; 0 refused.\n"
    sealed = path.read_text(encoding="utf-8")
    assert sealed == SHIPPED.read_text(encoding="utf-8")  # the shipped file was sealed this way
    before, after = json.loads(unsealed), json.loads(sealed)
    assert after["interactions"] == before["interactions"]
    assert after["provenance"] == {
        **before["provenance"],
        DIGEST_KEY: interactions_digest(before["interactions"]),
    }
    assert seal_cassette(path) == "already sealed"
    assert run_e3(tmp_path) == 0


def test_sealing_never_blesses_an_edit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = edit(copy_of_e3(tmp_path), set_text)
    edited = path.read_bytes()
    assert main(["cassettes", "seal", "--cassettes", str(tmp_path / "cassettes")]) == 2
    assert "was edited after it was recorded" in one_sentence(capsys.readouterr().err)
    assert path.read_bytes() == edited
    assert main(["cassettes", "check", str(path)]) == 2


def test_check_lists_only_problems_and_ends_with_a_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """About 300 cassettes printed one line each and no total."""
    good = copy_of_e3(tmp_path)
    bad = good.with_name("edited.json")
    shutil.copyfile(good, bad)
    edit(bad, set_text)
    assert main(["cassettes", "check", "--cassettes", str(tmp_path / "cassettes")]) == 2
    said = capsys.readouterr()
    assert said.out == "1 of 2 cassettes sealed and unedited; 1 refused.\n"
    assert "edited.json" in one_sentence(said.err)
    assert main(["-v", "cassettes", "check", "--cassettes", str(tmp_path / "cassettes")]) == 2
    assert "rounds.json: sealed and unedited\n" in capsys.readouterr().out


def test_a_count_that_is_not_a_number_is_refused(tmp_path: Path) -> None:
    path = edit(copy_of_e3(tmp_path), lambda data: data["provenance"].update(requests=True))
    with pytest.raises(CassetteError, match="says it holds True requests"):
        check_cassette(path)
