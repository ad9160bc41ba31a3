"""A crash between an assistant tool-call message and its results (kill -9 of a real agent
process while its tool runs) leaves a session the next call can use: on load each call
without a result gets a synthetic result saying it was interrupted, recorded as such"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.sessions import bare_agent

from harness.harness_agent import HarnessAgent
from harness.messages import Message
from harness.model import ChatRequest
from harness.replies import INTERRUPTED_CODE, INTERRUPTED_TEXT
from harness.store.eventlog import EventLog
from harness.store.statefile import JsonStateStore
from harness.testing import FunctionModel

AGENT = """
import sys, time
from pathlib import Path
from harness.harness_agent import HarnessAgent
from harness.messages import Message, ToolCall
from harness.testing import FunctionModel
from harness.tools import Tool

root, store, flag = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])

def reply(request):
    calls = [ToolCall("call-1", "slow", "{}"), ToolCall("call-2", "slow", "{}")]
    return Message.assistant("", calls)

def slow() -> str:
    flag.touch()  # the assistant message is on disk; the results are not
    time.sleep(60)
    return "done"

agent = HarnessAgent(
    FunctionModel(reply), "system", workspace_root=root, user_id="u", session_id="s1",
    tools=[Tool.from_function(slow)], disable_compaction=True, disable_memory_hooks=True,
    disable_memory_tools=True, store=store,
)
agent.call("run the slow tool twice")
"""


def _agent(root: Path, store: str, model: FunctionModel) -> HarnessAgent:
    return bare_agent(root, model, store)


def _kill_while_the_tool_runs(root: Path, store: str) -> None:
    flag = root / "tool-running"
    child = subprocess.Popen(
        [sys.executable, "-c", AGENT, str(root), store, str(flag)], stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    while not flag.exists():
        assert child.poll() is None, child.stderr.read() if child.stderr else ""
        assert time.monotonic() < deadline
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)


@pytest.mark.parametrize("store", ["eventlog", "state"])
def test_a_session_killed_mid_tool_round_resumes(tmp_path: Path, store: str) -> None:
    _kill_while_the_tool_runs(tmp_path, store)
    seen: list[ChatRequest] = []

    def answer(request: ChatRequest) -> str:
        seen.append(request)
        return "the tool was interrupted; shall I retry?"

    agent = _agent(tmp_path, store, FunctionModel(answer))
    result = agent.call("what happened?")  # raised PairingError before the fix
    assert result is not None
    sent = seen[0].messages
    closed = [m for m in sent if m.role == "tool"]
    assert [m.tool_call_id for m in closed] == ["call-1", "call-2"]
    assert all(m.content == INTERRUPTED_TEXT for m in closed)
    if store == "eventlog":
        events = EventLog.replay(tmp_path / "u/events/s1.jsonl").events
        marked = [e for e in events if e.type == "tool/result"]
        assert [e.data["interrupted"] for e in marked] == [INTERRUPTED_CODE] * 2
        assert all(e.source_event_seqs for e in marked)  # each cites its call's event
    else:
        context = JsonStateStore(tmp_path / "u/state").load("s1").context
        marked = [m for m in context if m.role == "tool"]
        assert [m.metadata["interrupted"] for m in marked] == [INTERRUPTED_CODE] * 2
    agent.close()


def test_a_complete_session_is_left_alone(tmp_path: Path) -> None:
    agent = _agent(tmp_path, "eventlog", FunctionModel(lambda r: "hi"))
    agent.call("hello")
    agent.close()
    before = EventLog.replay(tmp_path / "u/events/s1.jsonl").messages()
    again = _agent(tmp_path, "eventlog", FunctionModel(lambda r: "hi"))
    assert list(again.agent.context) == before
    assert not [m for m in before if m.role == "tool"]
    assert Message.user("hello") in before
