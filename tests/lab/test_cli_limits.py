"""``ctxlab compact`` and ``ctxlab record`` options that bound and check what the user set
: timeouts against a real silent server on 127.0.0.1, and bad values
refused naming the option the user typed."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from support.loopback import SilentServer
from support.sessions import run_turns
from support.summary_server import KEY_ENV, compact_args

from harness.model import ChatRequest
from harness.testing import FunctionModel
from lab.cli import main


def saved_session(root: Path) -> None:
    def answer(request: ChatRequest) -> str:
        return f"answer {len(request.messages)}"

    run_turns(root, FunctionModel(answer), [f"question {n} " + "x" * 200 for n in range(4)])


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test-000000000000000000")


def test_compact_against_a_silent_server_stops_at_the_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved_session(tmp_path)
    with SilentServer() as server:
        started = time.monotonic()
        status = main(compact_args(tmp_path, server.base_url, "--timeout", "0.5"))
        elapsed = time.monotonic() - started
    assert status == 2
    assert elapsed < 5  # not the 30 minutes of old (imports included)
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "total timeout of 0.5 s" in err


def test_record_against_a_silent_server_stops_at_the_timeout_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXLAB_TIMEOUT", "30")  # the option wins over the environment
    cassettes = tmp_path / "cassettes"
    with SilentServer() as server:
        started = time.monotonic()
        args = ["record", "E3", "--provider", "openai-compatible", "--base-url", server.base_url]
        args += ["--model", "m", "--api-key-env", KEY_ENV, "--cassettes", str(cassettes)]
        args += ["--out", str(tmp_path / "reports"), "--timeout", "0.5", "--read-timeout", "0.2"]
        status = main(args)
        elapsed = time.monotonic() - started
    assert status == 2
    assert elapsed < 5
    assert "total timeout of 0.5 s" in capsys.readouterr().err
    assert not list(cassettes.rglob("*.json"))


@pytest.mark.parametrize("option", ["--timeout", "--connect-timeout", "--read-timeout"])
@pytest.mark.parametrize("value", ["nan", "inf", "-3", "0", "soon"])
def test_a_bad_timeout_option_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    with pytest.raises(SystemExit) as info:
        main(compact_args(tmp_path, "http://127.0.0.1:9/v1", f"{option}={value}"))
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: must be a finite number of seconds above 0, not {value!r}" in err


@pytest.mark.parametrize("value", ["-3", "0", "1.5", "many"])
def test_a_bad_keep_names_keep_not_trigger_messages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    with pytest.raises(SystemExit):
        main(compact_args(tmp_path, "http://127.0.0.1:9/v1", f"--keep={value}"))
    err = capsys.readouterr().err
    assert f"argument --keep: must be a whole number of at least 1, not {value!r}" in err
    assert "trigger_messages" not in err


def test_a_bad_timeout_in_the_environment_is_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    saved_session(tmp_path)
    monkeypatch.setenv("CTXLAB_TIMEOUT", "nan")
    assert main(compact_args(tmp_path, "http://127.0.0.1:9/v1")) == 2
    err = capsys.readouterr().err.strip()
    assert err == "ctxlab: CTXLAB_TIMEOUT must be a finite number of seconds above 0, not 'nan'."
