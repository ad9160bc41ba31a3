"""Replies built to exhaust the agent: bounded before they cost anything (issue 25).

Through a real HTTP server on 127.0.0.1 and the real client: one reply with 1,000 tool calls
runs at most ``max_steps`` of them (the rest answered with an error result, so every call keeps
its result); 200,000-deep tool arguments are an error result for the model, not a
``RecursionError`` out of ``agent.call``; a 200,000-deep reply body is a typed
``ResponseFormatError``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.loopback import ScriptedHTTPServer, completion, json_reply, say
from support.sessions import bare_agent

from harness.agent import Agent
from harness.client import ChatClient, RetryPolicy
from harness.errors import ResponseFormatError, StepLimitExceededError
from harness.messages import Message, ToolCall, validate_pairing
from harness.model import ChatRequest
from harness.store.eventlog import EventLog
from harness.testing import FunctionModel
from harness.tools import Tool

RUN: list[int] = []


def tick(n: int) -> str:
    """Count a run."""
    RUN.append(n)
    return "ok"


TICK = Tool.from_function(tick)


def client(url: str) -> ChatClient:
    return ChatClient("m", base_url=url, api_key="sk-test-key-for-loopback", retry=RetryPolicy(0))


def tool_reply(calls: list[dict[str, object]]) -> tuple[int, bytes, str]:
    message = {"role": "assistant", "content": None, "tool_calls": calls}
    return json_reply(completion(message))


def _call(number: int, arguments: object) -> dict[str, object]:
    return {
        "id": f"c{number}",
        "type": "function",
        "function": {"name": "tick", "arguments": arguments},
    }


def test_one_reply_with_many_tool_calls_runs_at_most_max_steps(tmp_path: Path) -> None:
    # 1,000 here, not the probe's 10,000: what is left of its cost is one fsync per saved
    # result (group commit is issue 26's), not the tools
    RUN.clear()
    calls = [_call(n, json.dumps({"n": n})) for n in range(1_000)]
    with ScriptedHTTPServer([tool_reply(calls), say("done")]) as server:
        agent = bare_agent(tmp_path, client(server.base_url), tools=[TICK], max_steps=20)
        with pytest.raises(StepLimitExceededError) as info:  # 1 + 980 steps > 20
            agent.call("go")
        agent.close()
        assert len(server.bodies) == 1  # the excess used up the steps: no second request
    assert [*RUN] == list(range(20))  # the first max_steps calls ran, in order
    partial = info.value.partial
    assert partial is not None
    results = [m for m in partial.messages if m.role == "tool"]
    assert len(results) == 1_000  # every call answered: the pairing holds
    assert all("was not run" in m.content for m in results[20:])
    saved = EventLog.replay(tmp_path / "u/events/s1.jsonl").messages()
    validate_pairing(saved)
    assert len([m for m in saved if m.role == "tool"]) == 1_000


def test_tool_calls_past_the_cap_count_against_max_steps() -> None:
    """Each call past the per-reply cap uses one step: a reply of 25 calls under a cap of 20
    costs 1 + 5 steps, so a model that keeps calling one tool gets 14 more requests, not 19."""
    RUN.clear()
    numbers = iter(range(10_000))

    def keeps_calling(request: ChatRequest) -> Message:
        many = 25 if len(model.requests) == 1 else 1
        return Message.assistant(
            "", [ToolCall(f"k{next(numbers)}", "tick", '{"n": 0}') for _ in range(many)]
        )

    model = FunctionModel(keeps_calling)
    agent = Agent(model, tools=[TICK], max_steps=20, max_tool_calls_per_reply=20)
    with pytest.raises(StepLimitExceededError) as info:
        agent.call("go")
    assert len(model.requests) == 15  # 1 + 5 (the excess) + 14 = 20 steps
    assert len(RUN) == 20 + 14  # the excess five were not run
    assert info.value.partial is not None
    validate_pairing(agent.context)


def test_the_cap_can_be_set_apart_from_max_steps() -> None:
    RUN.clear()
    calls = [_call(n, json.dumps({"n": n})) for n in range(5)]
    with ScriptedHTTPServer([tool_reply(calls), say("done")]) as server:
        agent = Agent(client(server.base_url), tools=[TICK], max_tool_calls_per_reply=2)
        assert agent.call("go").text == "done"
    assert RUN == [0, 1]


def test_200000_deep_tool_arguments_are_an_error_result_not_a_recursion_error() -> None:
    RUN.clear()
    deep = "[" * 200_000 + "]" * 200_000
    with ScriptedHTTPServer([tool_reply([_call(1, deep)]), say("fixed")]) as server:
        agent = Agent(client(server.base_url), tools=[TICK])
        result = agent.call("go")
        (answer,) = [m for m in server.bodies[1]["messages"] if m["role"] == "tool"]
    assert result.text == "fixed" and RUN == []
    assert "not a JSON object" in answer["content"] and "levels deep" in answer["content"]


def test_a_200000_deep_reply_body_is_a_format_error() -> None:
    body = b'{"choices": [{"message": {"role": "assistant", "content": ' + b"[" * 200_000
    body += b"]" * 200_000 + b"}}]}"
    with ScriptedHTTPServer([(200, body, "application/json")]) as server:
        agent = Agent(client(server.base_url))
        with pytest.raises(ResponseFormatError, match="not a JSON object"):
            agent.call("go")
        assert [m.role for m in agent.context] == ["user"]  # nothing of the reply was kept
