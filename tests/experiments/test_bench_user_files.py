"""``ctxlab bench`` on a user's own conversations: what used to be taken silently is one
sentence now (a scored fact with no value, a value said in no turn, generator options beside
``--conversations``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from experiments.x_bench.corpus import generate
from experiments.x_bench.schema import dump_conversation
from lab.cli import main


def _mine(tmp_path: Path, change: Any = None) -> Path:
    data = json.loads(dump_conversation(generate(4, "2k", "en")))
    data.update(id="my-own", size="custom", seed=None)
    if change is not None:
        change(data)
    path = tmp_path / "mine.json"
    path.write_text(json.dumps([data], ensure_ascii=False), encoding="utf-8")
    return path


def _scored(data: dict[str, Any]) -> dict[str, Any]:
    return next(f for f in data["facts"] if f["kind"] != "abstention")


def _bench(tmp_path: Path, path: Path, *extra: str) -> int:
    out = str(tmp_path / "out")
    return main(
        ["bench", "--conversations", str(path), "--conditions", "full", *extra, "--out", out]
    )


def _sentence(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ctxlab: "), err
    return err[0]


def test_a_scored_fact_without_values_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It used to drop out of the survival score (1/1 where 1/2 was due)."""
    path = _mine(tmp_path, lambda data: _scored(data).update(values=[]))
    assert _bench(tmp_path, path) == 2
    assert "needs at least one value" in _sentence(capsys)


def test_a_value_said_in_no_turn_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It could never survive: its fact counted as lost under every condition."""
    path = _mine(tmp_path, lambda data: _scored(data)["values"].append("never-said-ZX81"))
    assert _bench(tmp_path, path) == 2
    assert "'never-said-ZX81' occurs in no turn" in _sentence(capsys)


@pytest.mark.parametrize("option", [["--sizes", "8k"], ["--seeds", "3"], ["--langs", "zh"]])
def test_generator_options_beside_own_conversations_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    """They were ignored silently: the run played the file's conversations anyway."""
    assert _bench(tmp_path, _mine(tmp_path), *option) == 2
    assert f"{option[0]} choose generated conversations" in _sentence(capsys)


def test_the_users_conversations_still_play(tmp_path: Path) -> None:
    assert _bench(tmp_path, _mine(tmp_path)) == 0
