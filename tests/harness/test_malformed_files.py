"""A damaged file ctxlab reads is one sentence naming the file, never a raw traceback.

Each state case plants one malformed state file on disk and opens the session through
``HarnessAgent`` and makes a call, as a user resuming a session would; a deeply nested cassette
goes through ``ctxlab run`` in its own process; an unreadable baseline through the reader that
``ctxlab run --check`` and the claims plugin use.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.paths import ROOT

from experiments.cli import main as ctxlab_main
from harness.errors import CtxlabError
from harness.harness_agent import HarnessAgent
from harness.testing import FunctionModel
from lab.baseline import read_baseline
from lab.errors import ExperimentError

MESSAGE = b'{"epoch": 0, "message": {"role": "user", "content": "x"}}\n'
STATE_FILES = {
    "checkpoint-not-json": ("state/s1.json", b"{not json"),
    "checkpoint-a-list": ("state/s1.json", b"[1, 2]"),
    "checkpoint-without-context": ("state/s1.json", b'{"format": 2, "session_id": "s1"}'),
    "checkpoint-utf16": ("state/s1.json", '{"format": 2}'.encode("utf-16")),
    "checkpoint-bad-message": (
        "state/s1.json",
        b'{"format": 2, "session_id": "s1", "context": [{"x": 1}]}',
    ),
    "checkpoint-context-a-number": (
        "state/s1.json",
        b'{"format": 2, "session_id": "s1", "context": 5}',
    ),
    "checkpoint-unknown-format": (
        "state/s1.json",
        b'{"format": 9, "session_id": "s1", "context": []}',
    ),
    "journal-line-not-json": ("state/s1.journal.jsonl", b"garbage\n" + MESSAGE),
    "journal-line-a-number": ("state/s1.journal.jsonl", b"5\n" + MESSAGE),
    "journal-line-without-message": ("state/s1.journal.jsonl", b'{"epoch": 0}\n' + MESSAGE),
    "journal-bad-message": (
        "state/s1.journal.jsonl",
        b'{"epoch": 0, "message": {"x": 1}}\n' + MESSAGE,
    ),
}


@pytest.mark.parametrize("case", sorted(STATE_FILES))
def test_a_damaged_state_file_is_one_sentence_naming_it(tmp_path: Path, case: str) -> None:
    relative, data = STATE_FILES[case]
    path = tmp_path / "u" / relative
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    model = FunctionModel(lambda request: "ok")
    with pytest.raises(CtxlabError) as info:
        agent = HarnessAgent(
            model, workspace_root=tmp_path, user_id="u", session_id="s1", store="state"
        )
        agent.call("hello")
    message = str(info.value)
    assert str(path) in message, message
    assert "\n" not in message and ("backup" in message or "move it aside" in message)
    assert path.read_bytes() == data  # nothing of it was rewritten or dropped


# --- files of the suite: a cassette and the claims baseline ------------------------------------


def test_a_deeply_nested_cassette_is_one_sentence_from_ctxlab_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `ctxlab run` through its main(argv) in this process (a RecursionError would escape it and
    # fail the test); the command as a process is tests/lab/test_cli.py's.
    cassettes = tmp_path / "cassettes"
    shutil.copytree(ROOT / "cassettes" / "E3", cassettes / "E3")
    deep = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    planted = sorted(cassettes.rglob("*.json"))
    for path in planted:
        path.write_text(deep, encoding="utf-8")
    argv = ["run", "E3", "--cassettes", str(cassettes), "--out", str(tmp_path / "r")]
    assert ctxlab_main(argv) != 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "RecursionError" not in err, err
    assert "levels deep" in err and any(str(p) in err for p in planted)


@pytest.mark.parametrize("case", ["utf-16", "20-mb-field"])
def test_an_unreadable_claims_baseline_is_one_sentence_naming_it(tmp_path: Path, case: str) -> None:
    path = tmp_path / "claims.csv"
    header = "experiment,claim_id,status,note\n"
    if case == "utf-16":
        path.write_bytes((header + "E1,E1-X,match,fine\n").encode("utf-16"))
    else:
        path.write_text(header + 'E1,E1-X,match,"' + "x" * 20_000_000 + '"\n', encoding="utf-8")
    with pytest.raises(ExperimentError) as info:
        read_baseline(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


# --- saved lines nested too deep for the parser (found by python -m probes) ---------------------

DEEP = ("[" * 100_000 + "]" * 100_000).encode()


@pytest.mark.parametrize(
    ("store", "relative", "where"),
    [
        ("eventlog", "events/s1.jsonl", "last"),
        ("eventlog", "events/s1.jsonl", "middle"),
        ("state", "state/s1.journal.jsonl", "last"),
        ("state", "state/s1.json", "whole"),
    ],
)
def test_a_saved_line_nested_too_deep_is_no_recursion_error(
    tmp_path: Path, store: str, relative: str, where: str
) -> None:
    from support.sessions import run_turns

    run_turns(tmp_path, FunctionModel(lambda request: "ok"), ["one", "two", "three"], store)
    path = tmp_path / "u" / relative
    if where == "whole":
        path.write_bytes(DEEP)
    else:
        lines = path.read_bytes().splitlines(keepends=True)
        at = len(lines) if where == "last" else len(lines) // 2
        path.write_bytes(b"".join([*lines[:at], DEEP + b"\n", *lines[at:]]))
    model = FunctionModel(lambda request: "ok")
    try:
        agent = HarnessAgent(
            model, workspace_root=tmp_path, user_id="u", session_id="s1", store=store,
            disable_memory_hooks=True,
        )  # fmt: skip
        agent.call("after")
        agent.close()
    except CtxlabError as exc:  # a line in the middle, or the checkpoint: one sentence
        assert where != "last" and str(path) in str(exc) and "\n" not in str(exc)
    else:  # the last line: an unreadable tail, moved aside and kept
        assert where == "last"
        assert DEEP in (path.parent / f"{path.name}.corrupt").read_bytes()


# --- a DeepSeek-Harness session file with a line nested too deep -------------------------------


def _dsh_session_with_deep_line(root: Path, where: str) -> Path:
    from support.sessions import bare_agent

    agent = bare_agent(root, FunctionModel(lambda request: "ok"), log_format="dsh")
    for text in ("one", "two", "three"):
        agent.call(text)
    agent.close()
    path = root / "u" / "events" / "s1.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    at = len(lines) if where == "last" else len(lines) // 2
    path.write_bytes(b"".join([*lines[:at], DEEP + b"\n", *lines[at:]]))
    return path


@pytest.mark.parametrize("where", ["middle", "last"])
def test_a_dsh_line_nested_too_deep_is_no_recursion_error(tmp_path: Path, where: str) -> None:
    path = _dsh_session_with_deep_line(tmp_path, where)
    try:
        agent = HarnessAgent(
            FunctionModel(lambda request: "ok"), workspace_root=tmp_path, user_id="u",
            session_id="s1", store="eventlog", disable_memory_hooks=True,
        )  # fmt: skip
        agent.call("after")
        agent.close()
    except CtxlabError as exc:  # a line in the middle: one sentence naming the file and line
        message = str(exc)
        assert where == "middle" and f"{path}:" in message and "\n" not in message, message
        assert "levels deep" in message
    else:  # the last line: an unreadable tail, moved aside and kept
        assert where == "last"
        assert DEEP in (path.parent / f"{path.name}.corrupt").read_bytes()


def test_ctxlab_show_on_a_dsh_line_nested_too_deep_is_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lab.cli import main

    path = _dsh_session_with_deep_line(tmp_path, "middle")
    before = path.read_bytes()
    assert main(["show", "--workspace", str(tmp_path), "--user", "u", "--session", "s1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("ctxlab: "), err
    assert f"{path}:" in err and "levels deep" in err and "Recursion" not in err
    assert path.read_bytes() == before  # show is read only
