"""``ctxlab``'s help, version and messages: each message that once misled has a test
here that shows the sentence it says now, and that nothing is created or asked for before it."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from support.manual_sessions import saved_session, server  # noqa: F401  (a fixture)
from support.summary_server import SummaryServer

from experiments.manifest import MANIFEST
from lab.cli import _parser, main
from lab.registry import EXPERIMENTS

COMMANDS = ("run", "record", "compact", "serve-local")


def one_sentence(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("ctxlab: ") and "Traceback" not in err
    return lines[0]


def files_under(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*"))


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith("ctxlab ") and out != "ctxlab unknown"


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in COMMANDS:
        assert f"    {command}" in out


def test_run_help_lists_the_experiments_and_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    for key, title in EXPERIMENTS.items():
        assert f"  {key}  {title.title}" in out
    flat = " ".join(out.split())
    assert "(default: reports/ of the project)" in flat
    assert "(default: cassettes/ of the project)" in flat


def test_the_help_list_is_the_registry() -> None:
    assert [(key, e.title) for key, e in EXPERIMENTS.items()] == [(m.id, m.title) for m in MANIFEST]


def _actions(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.Action]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += [(f"{name} {a.dest}", a) for a in sub._actions]
        else:
            found.append((action.dest, action))
    return found


def test_every_option_has_help_and_defaults_are_shown() -> None:
    parser = _parser()
    for name, action in _actions(parser):
        assert action.help, f"{name} has no help text"
    compact = parser.parse_args(["compact", "--workspace", "w", "--session", "s"])
    assert compact.keep == 2
    text = parser._subparsers._group_actions[0].choices["compact"].format_help()  # type: ignore[union-attr]
    flat = " ".join(text.split())
    assert "(default: 2)" in flat and "(default: agentscope)" in flat


def test_compact_on_a_missing_workspace_says_so_before_asking_for_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    workspace = tmp_path / "nowhere"
    assert main(["compact", "--workspace", str(workspace), "--session", "s1"]) == 2
    line = one_sentence(capsys.readouterr().err)
    assert "does not exist" in line and "busy" not in line and "API key" not in line
    assert not workspace.exists()


def test_compact_on_a_missing_session_says_it_does_not_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    saved_session(tmp_path)
    before = files_under(tmp_path)
    assert main(["compact", "--workspace", str(tmp_path), "--user", "u", "--session", "s9"]) == 2
    line = one_sentence(capsys.readouterr().err)
    assert "Session 's9' of user 'u' does not exist" in line and "busy" not in line
    assert files_under(tmp_path) == before


def test_undo_with_nothing_to_undo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    saved_session(tmp_path)
    args = ["compact", "--workspace", str(tmp_path), "--user", "u", "--session", "s1", "--undo"]
    assert main(args) == 2
    line = one_sentence(capsys.readouterr().err)
    assert "Nothing to undo" in line and "commit" not in line


def test_the_missing_extra_hint_works_from_a_clone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(__import__("sys").modules, "llama_cpp", None)
    assert main(["serve-local", "--port", "1"]) == 2
    line = one_sentence(capsys.readouterr().err)
    assert "pip install -e '.[record]'" in line and "clone" in line
    assert "ctxlab[record]" not in line


def test_out_pointing_at_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "report.html"
    target.write_text("mine")
    assert main(["run", "E1", "--out", str(target)]) == 2
    line = one_sentence(capsys.readouterr().err)
    assert "is a file; give a folder" in line
    assert target.read_text() == "mine" and files_under(tmp_path) == [target]


def test_out_empty_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["run", "E1", "--out", ""])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "--out: needs a folder name, not an empty string" in err


def test_openai_compatible_on_this_machine_needs_no_key(
    tmp_path: Path,
    server: SummaryServer,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    saved_session(tmp_path)
    args = ["compact", "--workspace", str(tmp_path), "--user", "u", "--session", "s1"]
    args += ["--provider", "openai-compatible", "--base-url", server.url, "--model", "m"]
    assert main(args) == 0, capsys.readouterr().err
    assert "8 → 3 messages" in capsys.readouterr().out


def _damage(path: Path, case: str) -> None:
    import json

    lines = path.read_bytes().splitlines(keepends=True)
    at = 2  # an event in the middle (a dsh log's line 1 is its header)
    if case == "duplicate-seq":
        lines.insert(at, lines[at])
    elif case == "missing-seq":
        del lines[at]
    elif case == "bad-byte":
        lines[at] = lines[at][:5] + b"\xff" + lines[at][5:]
    elif case == "unknown-field":
        lines[at] = json.dumps({**json.loads(lines[at]), "zzz": 1}).encode() + b"\n"
    elif case == "wrong-version":
        lines[0] = json.dumps({**json.loads(lines[0]), "version": 99}).encode() + b"\n"
    elif case == "nested-too-deep":
        lines.insert(at, b"[" * 100_000 + b"]" * 100_000 + b"\n")
    path.write_bytes(b"".join(lines))


@pytest.mark.parametrize(
    ("log_format", "case"),
    [
        *(
            (f, c)
            for f in ("ctxlab", "dsh")
            for c in ("duplicate-seq", "missing-seq", "bad-byte", "unknown-field")
        ),
        ("dsh", "wrong-version"),
        ("dsh", "nested-too-deep"),
        ("ctxlab", "nested-too-deep"),
    ],
)
def test_compact_on_a_damaged_log_says_damaged_not_busy(
    tmp_path: Path,
    server: SummaryServer,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    log_format: str,
    case: str,
) -> None:
    from support.manual_sessions import answer
    from support.sessions import bare_agent

    from harness.testing import FunctionModel

    agent = bare_agent(tmp_path, FunctionModel(answer), log_format=log_format)
    for n in range(4):
        agent.call(f"question {n} " + "x" * 200)
    agent.close()
    path = tmp_path / "u" / "events" / "s1.jsonl"
    _damage(path, case)
    before = path.read_bytes()
    args = ["compact", "--workspace", str(tmp_path), "--user", "u", "--session", "s1"]
    args += ["--engine", "dsh", "--provider", "openai-compatible", "--base-url", server.url]
    assert main([*args, "--model", "m"]) == 2
    line = one_sentence(capsys.readouterr().err)
    assert line.startswith("ctxlab: damaged: ") and f"{path}:" in line, line
    assert "busy" not in line and "Recursion" not in line
    assert path.read_bytes() == before


def test_compact_with_a_damaged_audit_says_damaged_naming_its_line(
    tmp_path: Path,
    server: SummaryServer,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = saved_session(tmp_path)
    audit = base / "audit.jsonl"
    audit.write_bytes(b'{"session": "s1"}\n{not json\n')
    args = ["compact", "--workspace", str(tmp_path), "--user", "u", "--session", "s1"]
    args += ["--provider", "openai-compatible", "--base-url", server.url, "--model", "m"]
    assert main(args) == 2
    line = one_sentence(capsys.readouterr().err)
    assert line.startswith("ctxlab: damaged: ") and f"{audit}:2:" in line, line


def test_compact_on_a_damaged_state_file_says_damaged_not_busy(
    tmp_path: Path,
    server: SummaryServer,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = saved_session(tmp_path, "state")
    checkpoint = base / "state" / "s1.json"
    checkpoint.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    args = ["compact", "--workspace", str(tmp_path), "--user", "u", "--session", "s1"]
    args += ["--provider", "openai-compatible", "--base-url", server.url, "--model", "m"]
    assert main(args) == 2
    line = one_sentence(capsys.readouterr().err)
    assert line.startswith("ctxlab: damaged: ") and str(checkpoint) in line, line
    assert "busy" not in line
