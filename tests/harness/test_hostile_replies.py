"""Replies built to exhaust the agent: bounded before they cost anything.

Through a real HTTP server on 127.0.0.1 and the real client: one reply with 1,000 tool calls
runs and keeps at most ``max_steps`` of them (the rest dropped from the stored reply, with one
note); one reply of 100,000 calls leaves a session, and a next request, of a size independent
of the number of calls, under both compaction engines and both log formats; 200,000-deep tool
arguments are an error result for the model, not a ``RecursionError`` out of ``agent.call``; a
200,000-deep reply body is a typed ``ResponseFormatError``.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from support.loopback import ScriptedHTTPServer, completion, json_reply, say
from support.sessions import bare_agent

from harness.agent import Agent
from harness.call_cap import DROPPED_KEY
from harness.client import ChatClient, RetryPolicy
from harness.compaction.dsh.config import DshConfig
from harness.errors import ResponseFormatError, StepLimitExceededError
from harness.harness_agent import HarnessAgent
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
    # result (the durability setting's group commit), not the tools
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
    assert len(results) == 20  # every kept call answered: the pairing holds
    (reply,) = [m for m in partial.messages if m.role == "assistant"]
    assert [c.id for c in reply.tool_calls] == [f"c{n}" for n in range(20)]
    assert "asked for 1000 tool calls" in reply.content
    assert "other 980 were dropped" in reply.content
    saved = EventLog.replay(tmp_path / "u/events/s1.jsonl").messages()
    validate_pairing(saved)
    assert [m.role for m in saved] == ["user", "assistant", *["tool"] * 20]
    assert saved[1].content == reply.content and saved[1].metadata[DROPPED_KEY] == 980


CALLS = 100_000


@pytest.fixture(scope="module")
def flood() -> Message:
    """The reply of CALLS tool calls, built once for the module (building it was most of the
    test's CPU; a message is immutable, so every agent is handed the same one) and let go with
    it (100,000 objects left to every later garbage collection of the process)."""
    return Message.assistant("", [ToolCall(f"f{n}", "tick", f'{{"n": {n}}}') for n in range(CALLS)])


def _floods_once(flood: Message, request: ChatRequest) -> Message:
    """The first agent request gets ``flood``, one reply of CALLS tool calls; later ones an
    answer."""
    if request.purpose != "agent":
        return Message.assistant("a summary")
    flooded = any(m.role == "tool" for m in request.messages)
    if flooded or any(m.content == "next" for m in request.messages):
        return Message.assistant("done")
    return flood


@pytest.mark.parametrize(
    ("log_format", "compaction"),
    [("ctxlab", None), ("dsh", DshConfig())],
    ids=["ctxlab-agentscope", "dsh-dsh"],
)
def test_one_reply_of_100000_calls_leaves_a_small_session(
    tmp_path: Path, log_format: str, compaction: DshConfig | None, flood: Message
) -> None:
    """The stored session and the next request are bounded by the cap, not by the reply: 22
    messages (user, the reply with its first 20 calls and the note, 20 results), a few KB."""
    RUN.clear()
    model = FunctionModel(functools.partial(_floods_once, flood))
    options = {} if compaction is None else {"compaction": compaction}

    def open_agent() -> HarnessAgent:
        return HarnessAgent(
            model, "system", workspace_root=tmp_path, user_id="u", session_id="s1",
            tools=[TICK], disable_memory_hooks=True, disable_memory_tools=True,
            store="eventlog", log_format=log_format, **options,  # type: ignore[arg-type]
        )  # fmt: skip

    agent = open_agent()
    with pytest.raises(StepLimitExceededError):
        agent.call("go")
    agent.close()
    assert len(RUN) == 20
    log = tmp_path / "u/events/s1.jsonl"
    assert log.stat().st_size < 20_000  # was 100,001 messages, megabytes
    saved = EventLog.replay(log).messages()
    validate_pairing(saved)
    assert [m.role for m in saved] == ["user", "assistant", *["tool"] * 20]
    assert f"other {CALLS - 20} were dropped" in saved[1].content

    again = open_agent()
    assert again.call("next").text == "done"  # the next call proceeds
    again.close()
    sent = model.requests[-1].messages
    assert len(sent) <= 30 and len(json.dumps([m.to_record() for m in sent])) < 20_000
    validate_pairing(list(sent))


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
