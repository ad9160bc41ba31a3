"""dsh's manual-compaction cases (``manual-compaction.spec.ts``) against ``ctxlab compact``.

The session file is laid out as dsh writes one (:func:`closed_turns`); ctxlab compacts it with
the DSH engine as ``ctxlab compact --file`` does, a scripted model answering the summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dsh_cases as dc
import pytest
from dsh_cases import Case

from harness.compaction.manual import ManualCompaction
from harness.errors import ManualCompactionError
from harness.model import ChatRequest
from harness.store.eventlog import EventLog
from harness.testing import FunctionModel

_MODEL = {"kind": "model", "provider": "deepseek", "model": "deepseek-v4-flash"}


def _messages(turn: int, seq: int) -> list[dict[str, Any]]:
    text = f"question {turn} " + "about the harbour schedule " * 8
    user = {"id": f"u{turn}", "role": "user", "content": [{"type": "text", "text": text}],
            "source": {"kind": "user"}}  # fmt: skip
    answer = f"answer {turn} " + "with details " * 8
    reply = {"id": f"a{turn}", "role": "assistant", "source": _MODEL,
             "content": [{"type": "text", "text": answer}]}  # fmt: skip
    return [
        {"type": "user/message", "seq": seq, "time": seq, "data": user, "surfaceOp": "append"},
        {"type": "assistant/message", "seq": seq + 1, "time": seq + 1, "surfaceOp": "append",
         "data": {"turn": turn, "step": 1, "message": reply}},
    ]  # fmt: skip


def closed_turns(count: int) -> list[dict[str, Any]]:
    """``count`` closed turns as dsh logs them: turn/start, the user message, a step holding
    the reply, turn/end (six events each)."""
    lines: list[dict[str, Any]] = []
    for turn in range(1, count + 1):
        seq = len(lines)
        user, reply = _messages(turn, seq + 1)
        reply["seq"] = reply["time"] = seq + 3
        step = {"turn": turn, "step": 1}
        lines += [
            {"type": "turn/start", "seq": seq, "time": seq, "data": {"turn": turn}},
            user,
            {"type": "step/start", "seq": seq + 2, "time": seq + 2, "data": step},
            reply,
            {"type": "step/end", "seq": seq + 4, "time": seq + 4, "data": step},
            {"type": "turn/end", "seq": seq + 5, "time": seq + 5,
             "data": {"turn": turn, "reason": {"kind": "completed"}}},
        ]  # fmt: skip
    return lines


def session(folder: Path, case: Case) -> Path:
    given = case.input
    if given["tail"] == "bare":
        return dc.session_file(folder, _messages(1, 0) + _messages(2, 2))
    return dc.session_file(folder, closed_turns(given["closed_turns"]) + given["tail"])


def summary(request: ChatRequest) -> str:
    return "## Primary Request and Intent\n- the harbour schedule"


def _agrees(case: Case, path: Path) -> bool:
    model = FunctionModel(summary)
    before = len(EventLog.replay(path).events)
    manual = ManualCompaction(path.parent, "conf", model, events_name=path.name)
    try:
        record = manual.compact("dsh")
    except ManualCompactionError as exc:
        busy = case.dsh.get("busy")
        unchanged = len(EventLog.replay(path).events) == before and not model.requests
        return exc.code == "busy" and busy is not None and busy in str(exc) and unchanged
    compacted = record.outcome == "compacted"
    return "busy" not in case.dsh and compacted == case.dsh["compacts"]


@pytest.mark.parametrize("case", dc.params("manual_compaction"))
def test_ctxlab_compact_refuses_and_compacts_a_dsh_session_as_dsh_does(
    case: Case, tmp_path: Path
) -> None:
    dc.conform(case, lambda: _agrees(case, session(tmp_path, case)))


def test_ctxlab_compact_names_the_open_turn_in_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lab.cli import main

    opened = {"type": "turn/start", "seq": 12, "time": 12, "data": {"turn": 3}}
    path = dc.session_file(tmp_path, [*closed_turns(2), opened])
    before = path.read_bytes()
    monkeypatch.setenv("CONF_KEY", "sk-test-000000000000000000")
    args = ["compact", "--file", str(path), "--engine", "dsh", "--provider",
            "openai-compatible", "--base-url", "http://127.0.0.1:9", "--model", "m",
            "--api-key-env", "CONF_KEY"]  # fmt: skip
    assert main(args) != 0
    err = capsys.readouterr().err.strip()
    assert "already has an open turn (turn 3, opened by turn/start at seq 12" in err
    assert err.count("\n") == 0 and err.count(". ") == 0, err  # one sentence
    assert path.read_bytes() == before  # nothing written: not even the resume mark
