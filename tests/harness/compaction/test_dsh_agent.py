"""The DSH engine inside the real agent loop: the pressure check before each request (with the
summary call as a prefix extension of the request the agent was about to send), tool-pair
back-off, overflow recovery and its limits, and the configuration errors.

Token prices are computed with the rule written out in :func:`rule_price`, not by the meter.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.agent import Agent
from harness.compaction.dsh import DshConfig
from harness.compaction.factory import make_engine
from harness.errors import ConfigError, ContextLengthExceededError
from harness.messages import Message, ToolCall, validate_pairing
from harness.model import ChatRequest, ChatResponse
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.eventlog.events import thaw
from harness.store.history import StateHistory
from harness.testing import FunctionModel
from harness.tools import Tool

SYSTEM = "You are terse."


def q(text: str) -> int:
    return math.ceil(len(text.encode("utf-16-le")) // 2 / 4)


def rule_price(message: Message) -> int:
    if message.role == "tool":
        return q(message.content) + 12
    blocks = q(message.content) + 4 if message.content else 0
    return blocks + sum(q(c.name) + q(c.arguments) + 4 for c in message.tool_calls) + 4


def request_price(request: ChatRequest) -> int:
    total = sum(q(m.content) + 4 if m.role == "system" else rule_price(m) for m in request.messages)
    if request.tools:
        total += q(json.dumps(list(request.tools), separators=(",", ":"), ensure_ascii=False)) + 4
    return total


def fetch(path: str) -> str:
    """List a directory."""
    return "r" * 1400


FETCH = Tool.from_function(fetch)


def make_agent(
    tmp_path: Path, model: FunctionModel, config: DshConfig, tools: tuple[Tool, ...] = (FETCH,)
) -> tuple[Agent, EventLog]:
    log = EventLog(tmp_path / "s.jsonl")
    history = EventLogHistory(log)
    engine = make_engine(config, model, history=history)
    agent = Agent(model, SYSTEM, tools, engine=engine, history=history)
    return agent, log


SUMMARY = "## Primary Request and Intent\n- q1 asked"


def agent_model(answer: Callable[[ChatRequest], str | Message]) -> FunctionModel:
    """Summary requests get SUMMARY; agent requests go to ``answer``."""

    def reply(request: ChatRequest) -> str | Message:
        if request.purpose == "summary":
            return SUMMARY
        return answer(request)

    return FunctionModel(reply)


def agent_requests(model: FunctionModel) -> list[ChatRequest]:
    return [r for r in model.requests if r.purpose == "agent"]


def compaction_types(log: EventLog) -> list[str]:
    return [e.type for e in log.events if e.type.startswith("compaction/")]


def header_price() -> int:
    return request_price(ChatRequest(messages=(Message.system(SYSTEM),), tools=(FETCH.schema(),)))


U1, A1, U2 = "q1 " + "x" * 400, "a" * 400, "q2 " + "y" * 400


# --- pressure -----------------------------------------------------------------------------------


def test_below_the_threshold_no_summary_is_requested(tmp_path: Path) -> None:
    model = agent_model(lambda r: A1)
    agent, log = make_agent(tmp_path, model, DshConfig(context_window=10_000, retain_tokens=50))
    agent.call(U1)
    agent.call(U2)
    assert [r.purpose for r in model.requests] == ["agent", "agent"]
    assert compaction_types(log) == []
    assert log.surface.replace_generation == 0


def test_above_the_threshold_a_compaction_runs_before_the_request(tmp_path: Path) -> None:
    u1, a1, u2 = Message.user(U1), Message.assistant(A1), Message.user(U2)
    first = header_price() + rule_price(u1)
    second = first + rule_price(a1) + rule_price(u2)
    config = DshConfig(context_window=math.floor(second / 0.8), retain_tokens=50)
    assert first < config.threshold <= second
    model = agent_model(lambda r: A1)
    agent, log = make_agent(tmp_path, model, config)

    agent.call(U1)
    result = agent.call(U2)

    assert [r.purpose for r in model.requests] == ["agent", "summary", "agent"]
    before, summary, after = model.requests
    about_to_send = (*before.messages, a1, u2)
    # the summary request is the agent's request cut after the shadowed span, plus the directive
    n = len(summary.messages) - 1
    assert summary.messages[:-1] == about_to_send[:n]
    assert summary.messages[1:-1] == (u1, a1)  # u2 (109 tokens) alone covers the retain of 50
    assert summary.tools == before.tools
    assert summary.messages[-1].role == "user" and "## Next Step" in summary.messages[-1].content

    assert request_price(after) < request_price(ChatRequest(about_to_send, tools=before.tools))
    assert len(after.messages) == 3
    assert after.messages[0] == Message.system(SYSTEM)
    assert (
        "<compacted-summary>" in after.messages[1].content and SUMMARY in after.messages[1].content
    )
    assert after.messages[2] == u2
    assert request_price(after) < config.threshold

    (event,) = result.requests[0].compactions
    assert event.trigger == "pressure"
    assert compaction_types(log) == ["compaction/start", "compaction/summary", "compaction/end"]
    assert EventLog.open(tmp_path / "s.jsonl").messages() == agent.history.messages()


def test_the_cut_backs_off_so_every_request_keeps_calls_with_results(tmp_path: Path) -> None:
    u1 = Message.user("u" * 1600)
    call = ToolCall("c1", "fetch", '{"path": "/srv"}')
    a1, t1 = Message.assistant("", [call]), Message.tool("c1", fetch("/srv"))
    first = header_price() + rule_price(u1)
    second = first + rule_price(a1) + rule_price(t1)
    # retain 100 is covered by the tool result alone: the naive cut falls between the call
    # and its result and has to move to just after u1.
    assert rule_price(t1) >= 100
    config = DshConfig(context_window=math.floor(second / 0.8), retain_tokens=100)
    assert first < config.threshold <= second

    def answer(request: ChatRequest) -> str | Message:
        return "done" if request.messages[-1].role == "tool" else a1

    model = agent_model(answer)
    agent, log = make_agent(tmp_path, model, config)
    result = agent.call(u1.content)

    assert result.text == "done"
    assert [r.purpose for r in model.requests] == ["agent", "summary", "agent"]
    summary = model.requests[1]
    assert summary.messages[1:-1] == (u1,)
    for request in agent_requests(model):
        validate_pairing(request.messages)
    after = model.requests[2]
    assert after.messages[2:] == (a1, t1)
    (event,) = result.requests[1].compactions
    assert (event.cutoff.index, event.cutoff.naive_index) == (1, 2)
    summary_event = next(e for e in log.events if e.type == "compaction/summary")
    u1_seq = next(e.seq for e in log.events if e.type == "user/message")
    assert thaw(summary_event.data["shadowed_seqs"]) == [u1_seq]
    validate_pairing(agent.history.messages())


def test_a_failed_pressure_compaction_does_not_fail_the_call(tmp_path: Path) -> None:
    def reply(request: ChatRequest) -> ChatResponse:
        if request.purpose == "summary":
            return ChatResponse(Message.assistant("- partial"), finish_reason="length")
        return ChatResponse(Message.assistant(A1))

    model = FunctionModel(reply)
    agent, log = make_agent(tmp_path, model, DshConfig(context_window=300, retain_tokens=50))
    agent.call(U1)
    result = agent.call(U2)
    assert result.text == A1
    assert any(e.type == "compaction/end" and e.data["error"] for e in log.events)


# --- overflow recovery --------------------------------------------------------------------------


def overflow() -> ContextLengthExceededError:
    return ContextLengthExceededError(
        "This model's maximum context length is 1000 tokens", status_code=400
    )


def test_overflow_compacts_with_retain_zero_and_retries_once(tmp_path: Path) -> None:
    u1, u2 = Message.user(U1), Message.user(U2)
    raised: list[ContextLengthExceededError] = []

    def answer(request: ChatRequest) -> str:
        if request.messages[-1] == u2 and not raised:
            raised.append(overflow())
            raise raised[0]
        return "ok"

    model = agent_model(answer)
    # A huge window: pressure never triggers, only the provider's overflow does.
    agent, log = make_agent(tmp_path, model, DshConfig(retain_tokens=100_000))
    agent.call(U1)
    result = agent.call(U2)

    assert result.text == "ok"
    assert [r.purpose for r in model.requests] == ["agent", "agent", "summary", "agent"]
    failed, summary, retry = model.requests[1:]
    assert summary.messages[1:-1] == (u1, Message.assistant("ok"))  # retain 0: only u2 kept
    assert summary.messages[:-1] == failed.messages[: len(summary.messages) - 1]
    assert request_price(retry) < request_price(failed)
    assert len(retry.messages) == 3
    assert "<compacted-summary>" in retry.messages[1].content
    assert retry.messages[2] == u2
    assert u1 not in retry.messages
    assert [e.trigger for e in result.compactions] == ["overflow"]
    assert log.surface.replace_generation == 1


def test_overflow_with_nothing_compactable_reraises_the_original_error(tmp_path: Path) -> None:
    error = overflow()

    def answer(_: ChatRequest) -> str:
        raise error

    model = agent_model(answer)
    agent, log = make_agent(tmp_path, model, DshConfig())
    with pytest.raises(ContextLengthExceededError) as info:
        agent.call(U1)  # the surface is one node: nothing to compact
    assert info.value is error
    assert [r.purpose for r in model.requests] == ["agent"]
    assert compaction_types(log) == []
    assert log.surface.replace_generation == 0


def test_overflow_recovery_off_reraises_without_compaction(tmp_path: Path) -> None:
    error = overflow()

    def answer(request: ChatRequest) -> str:
        if request.messages[-1].content == U2:
            raise error
        return A1

    model = agent_model(answer)
    agent, log = make_agent(tmp_path, model, DshConfig(max_overflow_retries=0))
    agent.call(U1)
    with pytest.raises(ContextLengthExceededError) as info:
        agent.call(U2)
    assert info.value is error
    assert "summary" not in [r.purpose for r in model.requests]
    assert compaction_types(log) == []


def test_a_second_overflow_after_the_retry_reaches_the_caller(tmp_path: Path) -> None:
    def answer(request: ChatRequest) -> str:
        if request.messages[-1].content == U2:
            raise overflow()
        return A1

    model = agent_model(answer)
    agent, log = make_agent(tmp_path, model, DshConfig())
    agent.call(U1)
    with pytest.raises(ContextLengthExceededError):
        agent.call(U2)
    assert [r.purpose for r in model.requests] == ["agent", "agent", "summary", "agent"]
    assert compaction_types(log).count("compaction/start") == 1


def test_a_failed_overflow_compaction_keeps_the_original_error(tmp_path: Path) -> None:
    error = overflow()

    def reply(request: ChatRequest) -> ChatResponse:
        if request.purpose == "summary":
            return ChatResponse(Message.assistant("- partial"), finish_reason="length")
        if request.messages[-1].content == U2:
            raise error
        return ChatResponse(Message.assistant(A1))

    agent, _ = make_agent(tmp_path, FunctionModel(reply), DshConfig())
    agent.call(U1)
    with pytest.raises(ContextLengthExceededError):
        agent.call(U2)


def test_a_failed_overflow_compaction_closes_its_bracket(tmp_path: Path) -> None:
    def reply(request: ChatRequest) -> ChatResponse:
        if request.purpose == "summary":
            return ChatResponse(Message.assistant("- partial"), finish_reason="length")
        if request.messages[-1].content == U2:
            raise overflow()
        return ChatResponse(Message.assistant(A1))

    agent, log = make_agent(tmp_path, FunctionModel(reply), DshConfig())
    agent.call(U1)
    with pytest.raises(ContextLengthExceededError):
        agent.call(U2)
    assert compaction_types(log) == ["compaction/start", "compaction/end"]
    assert log.open_compaction() is None
    assert log.surface.replace_generation == 0


# --- configuration ------------------------------------------------------------------------------


def test_dsh_needs_the_event_log_history() -> None:
    model = FunctionModel(lambda r: "x")
    with pytest.raises(ConfigError, match="keeps its compactions in the event log"):
        make_engine(DshConfig(), model)
    with pytest.raises(ConfigError, match="store='eventlog'"):
        make_engine(DshConfig(), model, history=StateHistory("s"))


def test_dsh_refuses_a_flush_it_cannot_run(tmp_path: Path) -> None:
    history = EventLogHistory(EventLog(tmp_path / "s.jsonl"))
    model = FunctionModel(lambda r: "x")
    with pytest.raises(ConfigError, match="no memory flush"):
        make_engine(DshConfig(), model, history=history, flush=lambda prefix: None)
    assert make_engine(DshConfig(), model, history=history).max_overflow_retries == 1
