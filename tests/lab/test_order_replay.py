"""Order replay (``--cassette-match order``): recorded answers in recorded order, request bodies
not matched; never a reproduction, so it never writes ``reports/`` and says so on every line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.paths import ROOT

from harness.messages import Message
from harness.model import ChatRequest
from lab.cli import main
from lab.errors import CassetteMismatchError
from lab.recorder import cassette_client
from lab.recorder.order_replay import NOT_A_REPRODUCTION

PROJECT_ROOT = ROOT
CASSETTE = next((PROJECT_ROOT / "cassettes" / "E3").glob("*/rounds.json"))


def recorded_answers() -> list[str]:
    data = json.loads(CASSETTE.read_text(encoding="utf-8"))
    return [
        i["response"]["body"]["json"]["choices"][0]["message"]["content"]
        for i in data["interactions"]
    ]


def ask(client: object, text: str) -> str:
    request = ChatRequest(messages=(Message.user(text),))
    return client.complete(request).message.content  # type: ignore[attr-defined]


def test_any_request_gets_the_next_recorded_answer_in_order() -> None:
    answers = recorded_answers()
    with cassette_client(CASSETTE, mode="replay", match="order") as cassette:
        got = [ask(cassette.client, f"not what was recorded {n}") for n in range(3)]
    assert got == answers[:3]


def test_the_ordinary_replay_refuses_the_same_request() -> None:
    with (
        pytest.raises(CassetteMismatchError),
        cassette_client(CASSETTE, mode="replay") as cassette,
    ):
        ask(cassette.client, "not what was recorded")


def test_asking_more_than_was_recorded_is_one_clear_error() -> None:
    count = len(recorded_answers())
    with cassette_client(CASSETTE, mode="replay", match="order") as cassette:
        for n in range(count):
            ask(cassette.client, str(n))
        with pytest.raises(CassetteMismatchError, match=r"no recorded answer left.*NOT a repro"):
            ask(cassette.client, "one more")


@pytest.mark.parametrize("out", ["reports", "{project}/reports"])
def test_run_in_order_refuses_reports(
    out: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = out.format(project=PROJECT_ROOT) if "{" in out else str(tmp_path / out)
    before = sorted(p.name for p in (PROJECT_ROOT / "reports").iterdir())
    assert main(["run", "E1", "--cassette-match", "order", "--out", folder]) == 2
    assert "never writes" in capsys.readouterr().err
    assert sorted(p.name for p in (PROJECT_ROOT / "reports").iterdir()) == before


def test_run_in_order_marks_every_line_and_writes_a_scratch_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """In process (``ctxlab``'s own start-up is tests/lab/test_cli.py's subprocess test)."""
    monkeypatch.chdir(tmp_path)
    code = main(["run", "E1", "--cassette-match", "order", "--project", str(PROJECT_ROOT)])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines and all(NOT_A_REPRODUCTION in line for line in lines)
    scratch = Path(lines[0].rsplit("writing to ", 1)[1])
    try:
        assert (scratch / "claims.csv").is_file()
        assert scratch.resolve() != (PROJECT_ROOT / "reports").resolve()
    finally:
        for path in sorted(scratch.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        scratch.rmdir()


def test_pytest_option_refuses_to_update_the_baseline(pytester: pytest.Pytester) -> None:
    done = pytester.runpytest(  # in process: the refusal is the plugin's, not the process's
        "-p", "experiments.pytest_plugin", "--cassette-match", "order", "--update-baseline"
    )
    assert done.ret == pytest.ExitCode.USAGE_ERROR
    assert "not a reproduction" in "\n".join(done.errlines)


def test_a_part_serves_its_answers_and_repeats_its_last_when_asked() -> None:
    from lab.recorder.order_replay import OrderPart

    answers = recorded_answers()
    head = OrderPart((None, 2), repeat_last=True)
    with cassette_client(CASSETTE, mode="replay", match="order", order_part=head) as cassette:
        got = [ask(cassette.client, f"x{n}") for n in range(4)]
    assert got == [answers[0], answers[1], answers[1], answers[1]]
    last = OrderPart((-1, None))  # no repeat: a second request has no answer left
    with cassette_client(CASSETTE, mode="replay", match="order", order_part=last) as cassette:
        assert ask(cassette.client, "probe") == answers[-1]
        with pytest.raises(CassetteMismatchError):
            ask(cassette.client, "again")
