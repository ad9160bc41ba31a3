"""A turn copies its history once per request: into the request, nowhere else.

Every copy of a long history touches each message's reference count, and again when it is
freed: at turn 2,000 (8,000 messages) three copies per request (the store's list, a tuple of
it, the request) were a part of a late turn's growth that the request does not need
(``benchmarks/turn_growth.py``). The agent builds each request from the store's
``message_view`` (no copy), never from ``messages()`` (a list), and the engine reads the
history inside the request (``Turn.start``), never ``Turn.messages`` (a copy). Counted here;
the request holds what ``messages()`` holds, and the engine's check reads the same totals.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from harness.agent import Agent
from harness.compaction.agentscope import CompactionConfig
from harness.compaction.engine import Turn
from harness.compaction.factory import make_engine
from harness.messages import Message, ToolCall
from harness.model import ChatRequest
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.history import History, StateHistory
from harness.store.statefile import JsonStateStore
from harness.testing import FunctionModel
from harness.tools import Tool


def _reply(request: ChatRequest) -> Message:
    if request.messages[-1].role == "user":
        n = len(request.messages)
        return Message.assistant("", [ToolCall(f"call_{n}", "lookup", '{"booking": "BK-1"}')])
    return Message.assistant("confirmed")


def _history(kind: str, folder: Path) -> History:
    if kind == "state":
        return StateHistory("s", JsonStateStore(folder / "state", durability="os"))
    return EventLogHistory(EventLog.open(folder / "s.jsonl", durability="os"))


@pytest.mark.parametrize("kind", ["state", "eventlog"])
def test_a_turn_copies_the_history_only_into_its_request(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = _history(kind, tmp_path)
    model = FunctionModel(_reply)
    lookup = Tool.from_function(lambda booking: f"{booking}: ok", name="lookup")
    config = CompactionConfig(
        trigger_messages=0,
        trigger_tokens=10**12,
        keep_messages=20,
        keep_tokens=0,
        flush_before_compact=False,
        offload_before_compact=False,
    )
    engine = make_engine(config, model, history=history)  # AgentScope's, its trigger far away
    agent = Agent(model, "system", [lookup], engine=engine, history=history)
    agent.call("first")
    listed, copied = [], []
    real = type(history).messages

    def counted(self: History) -> list[Message]:
        listed.append(1)
        return real(self)  # type: ignore[arg-type]

    def copy(self: Turn) -> tuple[Message, ...]:
        copied.append(1)
        return self.request.messages[self.start :]

    monkeypatch.setattr(type(history), "messages", counted)
    monkeypatch.setattr(Turn, "messages", property(copy))
    agent.call("second")
    assert listed == [] and copied == []  # two requests, each one copy of the history
    monkeypatch.undo()
    now = history.messages()
    assert list(history.message_view()) == now  # type: ignore[attr-defined]
    last = model.requests[-1].messages
    assert last[0] == Message.system("system") and list(last[1:]) == now[:-1]
    turn = Turn.of(model.requests[-1], ())
    assert turn.request.messages == last and turn.start == len(last) and turn.messages == ()


def test_a_turns_request_is_what_replace_gives() -> None:
    """``Turn.of`` builds the request without ``dataclasses.replace`` (twice per request of
    the loop): every field the header's, the same objects, the history after its messages; a
    header of a subclass goes through ``replace``. ChatRequest has no ``__post_init__`` for the
    shortcut to skip (one added must be run here too: this fails then)."""
    assert not hasattr(ChatRequest, "__post_init__")
    tools = ({"type": "function", "function": {"name": "f"}},)
    header = ChatRequest((Message.system("s"),), tools, "auto", 7, "summary", {"temperature": 0})
    history = [Message.user("u"), Message.assistant("a")]
    turn = Turn.of(header, history)
    want = dataclasses.replace(header, messages=(*header.messages, *history))
    assert turn.request == want and type(turn.request) is ChatRequest
    for field in dataclasses.fields(ChatRequest):
        if field.name != "messages":
            assert getattr(turn.request, field.name) is getattr(header, field.name)
    assert turn.header is header and turn.messages == tuple(history)

    class Sub(ChatRequest):
        pass

    sub = Sub((Message.system("s"),))
    assert type(Turn.of(sub, history).request) is Sub
