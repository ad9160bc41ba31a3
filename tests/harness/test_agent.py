"""Tests of harness.agent: the ReAct loop, tools, hooks, compaction inside a call, state."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from harness.agent import Agent
from harness.compaction.agentscope import SUMMARY_PREFIX, CompactionConfig
from harness.compaction.factory import make_engine
from harness.errors import (
    AgentError,
    ConfigError,
    ContextLengthExceededError,
    ServerError,
    StepLimitExceededError,
)
from harness.hooks import AgentHook, CallContext
from harness.messages import Message, ToolCall, validate_pairing
from harness.meter.pricers import estimate_tokens
from harness.model import ChatRequest
from harness.results import CallResult
from harness.store.statefile import JsonStateStore, Transcript
from harness.testing import FunctionModel, ScriptedModel, Step
from harness.tools import Tool


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def explode(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(f"cannot {reason}")


ADD = Tool.from_function(add)
EXPLODE = Tool.from_function(explode)


def calls(*specs: tuple[str, str, dict[str, object] | str]) -> Message:
    """An assistant message calling tools; arguments given as a dict or raw text."""
    return Message.assistant(
        "",
        [
            ToolCall(cid, name, args if isinstance(args, str) else json.dumps(args))
            for cid, name, args in specs
        ],
    )


def overflow() -> ContextLengthExceededError:
    return ContextLengthExceededError(
        "This model's maximum context length is 8192 tokens", status_code=400
    )


def count_config(trigger: int, keep: int) -> CompactionConfig:
    return CompactionConfig.count_only(trigger, keep)


def agent_requests(model: ScriptedModel | FunctionModel) -> list[ChatRequest]:
    return [r for r in model.requests if r.purpose == "agent"]


# --- the loop ---------------------------------------------------------------------------------


def test_plain_answer() -> None:
    with ScriptedModel([Step("Hello!", purpose="agent")]) as model:
        agent = Agent(model, system_prompt="Be brief.", tools=[ADD])
        result = agent.call("hi")
    assert result.text == "Hello!"
    assert result.tool_calls == ()
    assert (result.context_before, result.context_after) == (0, 2)
    assert agent.context == (Message.user("hi"), Message.assistant("Hello!"))
    (request,) = model.requests
    assert request.messages == (Message.system("Be brief."), Message.user("hi"))
    assert [t["function"]["name"] for t in request.tools] == ["add"]
    assert len(result.requests) == 1
    assert result.requests[0].messages_sent == 2
    # The working history in the request: the user's message (the system prompt is not in it).
    assert result.requests[0].context_messages == len(request.messages) - 1 == 1
    assert result.requests[0].estimated_tokens == estimate_tokens(request.messages)
    assert result.compactions == ()


def test_no_system_prompt_sends_no_system_message() -> None:
    with ScriptedModel(["ok"]) as model:
        Agent(model).call("hi")
    assert [m.role for m in model.requests[0].messages] == ["user"]


def answer_from_tool_results(request: ChatRequest) -> Message | str:
    """Call add(2, 3) and add(10, 20) in parallel, then report what the tools returned."""
    last = request.messages[-1]
    if last.role == "user":
        return calls(("c1", "add", {"a": 2, "b": 3}), ("c2", "add", {"a": 10, "b": 20}))
    results = [m.content for m in request.messages if m.role == "tool"]
    return "results: " + ", ".join(results)


def test_tool_round_with_two_parallel_calls() -> None:
    model = FunctionModel(answer_from_tool_results)
    agent = Agent(model, tools=[ADD])
    result = agent.call("add things")
    assert result.text == "results: 5, 30"
    assert result.tool_calls == ("add", "add")
    assert [m.kind for m in agent.context] == [
        "user",
        "tool_use",
        "tool_result",
        "tool_result",
        "assistant",
    ]
    assert [(m.tool_call_id, m.metadata) for m in agent.context[2:4]] == [
        ("c1", {"tool_name": "add"}),
        ("c2", {"tool_name": "add"}),
    ]
    assert len(model.requests) == len(result.requests) == 2
    validate_pairing(model.requests[1].messages)


def test_single_tool_round() -> None:
    script = [calls(("c1", "add", {"a": 40, "b": 2})), "It is 42."]
    with ScriptedModel(script) as model:
        agent = Agent(model, tools=[ADD])
        result = agent.call("what is 40 + 2?")
    assert result.text == "It is 42."
    second = model.requests[1].messages
    assert second[-1] == Message.tool("c1", "42")
    assert result.context_after == 4


@pytest.mark.parametrize(
    ("call", "error_part"),
    [
        (("c1", "subtract", {"a": 1}), "unknown tool 'subtract'"),
        (("c1", "add", "{not json"), "not a JSON object"),
        (("c1", "add", "[1, 2]"), "not a JSON object"),
        (("c1", "explode", {"reason": "fly"}), "RuntimeError: cannot fly"),
        (("c1", "add", {"a": 1}), "TypeError"),
    ],
)
def test_model_mistakes_come_back_as_error_results(
    call: tuple[str, str, dict[str, object] | str], error_part: str
) -> None:
    with ScriptedModel([calls(call), "sorry, let me fix that"]) as model:
        agent = Agent(model, tools=[ADD, EXPLODE])
        result = agent.call("do it")
    assert result.text == "sorry, let me fix that"
    tool_result = model.requests[1].messages[-1]
    assert tool_result.role == "tool"
    assert tool_result.content.startswith("Error: ")
    assert error_part in tool_result.content


def test_step_limit() -> None:
    counter = iter(range(1000))

    def always_calls(request: ChatRequest) -> Message:
        return calls((f"c{next(counter)}", "add", {"a": 1, "b": 1}))

    model = FunctionModel(always_calls)
    agent = Agent(model, tools=[ADD], max_steps=3)
    with pytest.raises(StepLimitExceededError) as info:
        agent.call("loop forever")
    assert info.value.steps == 3
    assert len(model.requests) == 3
    validate_pairing(agent.context)
    partial = info.value.partial  # what the call had done when it stopped (openai's run_data)
    assert partial is not None and isinstance(info.value, AgentError)
    assert partial.text == ""
    assert partial.tool_calls == ("add", "add", "add")
    assert len(partial.requests) == 3
    assert partial.messages[0] == Message.user("loop forever")
    assert [m.role for m in partial.messages[1:]] == ["assistant", "tool"] * 3
    assert partial.context_before == 0 and partial.context_after == len(agent.context) == 7


def test_provider_errors_reach_the_caller() -> None:
    with ScriptedModel([ServerError("down", status_code=503)]) as model:
        agent = Agent(model)
        with pytest.raises(ServerError):
            agent.call("hi")


# --- hooks ------------------------------------------------------------------------------------


class RecordingHook(AgentHook):
    def __init__(self) -> None:
        self.events: list[str] = []
        self.results: list[CallResult] = []
        self.calls: list[CallContext] = []

    def on_call_start(self, call: CallContext) -> None:
        self.events.append(f"start:{call.user_text}")
        self.calls.append(call)
        call.reference_messages.append(Message.user("MEMORY.md: customer ALPHA"))
        call.system_suffix.append("Search memory before answering.")

    def before_request(self, call: CallContext) -> None:
        self.events.append(f"before:{call.requests}")

    def after_call(self, call: CallContext, result: CallResult) -> None:
        self.events.append("after")
        self.results.append(result)


def test_hooks_fire_at_their_points() -> None:
    hook = RecordingHook()
    script = [calls(("c1", "add", {"a": 1, "b": 2})), calls(("c2", "add", {"a": 3, "b": 4})), "7"]
    with ScriptedModel(script) as model:
        agent = Agent(model, system_prompt="Base rules.", tools=[ADD], hooks=[hook])
        result = agent.call("q")
    assert hook.events == ["start:q", "before:0", "before:1", "before:2", "after"]
    assert hook.results == [result]
    assert hook.results[0] is result
    assert hook.calls[0].requests == 3


def test_reference_messages_and_system_suffix_are_sent_but_not_stored() -> None:
    hook = RecordingHook()
    with ScriptedModel(["a1", "a2"]) as model:
        agent = Agent(model, system_prompt="Base rules.", hooks=[hook])
        agent.call("q1")
        agent.call("q2")
    for request in model.requests:
        assert request.messages[0] == Message.system(
            "Base rules.\n\nSearch memory before answering."
        )
        assert request.messages[1] == Message.user("MEMORY.md: customer ALPHA")
    # Each call builds its own reference material: it does not pile up.
    assert len(model.requests[1].messages) == 2 + 3
    assert agent.context == (
        Message.user("q1"),
        Message.assistant("a1"),
        Message.user("q2"),
        Message.assistant("a2"),
    )
    assert all("MEMORY" not in m.content for m in agent.context)


def test_after_call_is_not_called_when_the_call_fails() -> None:
    hook = RecordingHook()
    with ScriptedModel([ServerError("down", status_code=500)]) as model:
        agent = Agent(model, hooks=[hook])
        with pytest.raises(ServerError):
            agent.call("q")
    assert "after" not in hook.events


# --- compaction inside a call -----------------------------------------------------------------


def tool_heavy_model(tool_rounds: int) -> FunctionModel:
    state = {"n": 0}

    def reply(request: ChatRequest) -> Message | str:
        state["n"] += 1
        if state["n"] <= tool_rounds:
            return calls((f"step{state['n']}", "add", {"a": state["n"], "b": 1}))
        return "finished"

    return FunctionModel(reply)


def test_compaction_runs_before_every_request_and_can_fire_twice_in_one_call() -> None:
    model = tool_heavy_model(tool_rounds=3)
    summaries = FunctionModel(lambda request: "progress so far")
    agent = Agent(
        model, tools=[ADD], engine=make_engine(count_config(4, 2), model, summary_model=summaries)
    )

    result = agent.call("run the pipeline")

    assert result.text == "finished"
    assert len(result.compactions) == 2
    assert len(summaries.requests) == 2
    assert [r.compaction is not None for r in result.requests] == [False, False, True, True]
    for event in result.compactions:
        assert event.total_messages == 5
        assert event.cutoff.index == 3
        assert event.keeping == 2
        assert event.messages_after == 3
    for request in model.requests:
        validate_pairing(request.messages)
    # Request 4 saw [summary, A3, T3]; the answer makes 4.
    assert [m.kind for m in model.requests[3].messages] == [
        "summary",
        "tool_use",
        "tool_result",
    ]
    assert [m.kind for m in agent.context] == ["summary", "tool_use", "tool_result", "assistant"]
    # The second summary saw the first one.
    assert "progress so far" in summaries.requests[1].messages[0].content


def test_context_overflow_forces_one_compaction_and_one_retry() -> None:
    script = ["a1", "a2", "a3", overflow(), "a4"]
    summary = ScriptedModel([Step("the summary", purpose="summary")])
    with ScriptedModel(script) as model, summary:
        agent = Agent(model, engine=make_engine(count_config(50, 2), model, summary_model=summary))
        for q in ("q1", "q2", "q3"):
            agent.call(q)
        result = agent.call("q4")
    assert result.text == "a4"
    failed, retry = model.requests[3], model.requests[4]
    assert len(failed.messages) == 7
    assert len(retry.messages) < len(failed.messages)
    assert estimate_tokens(retry.messages) < estimate_tokens(failed.messages)
    assert [m.kind for m in retry.messages] == ["summary", "assistant", "user"]
    assert retry.messages[-1] == Message.user("q4")
    (event,) = result.compactions
    assert event.trigger == "overflow"
    assert len(result.requests) == 1
    assert agent.context[-1] == Message.assistant("a4")


def test_a_second_overflow_in_the_retry_reaches_the_caller() -> None:
    second = overflow()
    summary = ScriptedModel([Step("S", purpose="summary")])
    with ScriptedModel(["a1", overflow(), second]) as model, summary:
        agent = Agent(model, engine=make_engine(count_config(50, 1), model, summary_model=summary))
        agent.call("q1")
        with pytest.raises(ContextLengthExceededError) as info:
            agent.call("q2")
    assert info.value is second


def test_a_second_overflow_later_in_the_same_call_reaches_the_caller() -> None:
    later = overflow()
    script = ["a1", overflow(), calls(("c1", "add", {"a": 1, "b": 1})), later]
    summary = ScriptedModel([Step("S", purpose="summary")])
    with ScriptedModel(script) as model, summary:
        agent = Agent(
            model,
            tools=[ADD],
            engine=make_engine(count_config(50, 1), model, summary_model=summary),
        )
        agent.call("q1")
        with pytest.raises(ContextLengthExceededError) as info:
            agent.call("q2")
    assert info.value is later
    # The next call gets its own retry.
    ok_model = ScriptedModel([overflow(), "fine"])
    summary2 = ScriptedModel([Step("S2", purpose="summary")])
    agent2 = Agent(
        ok_model, engine=make_engine(count_config(50, 1), ok_model, summary_model=summary2)
    )
    agent2.history.state.context = [Message.user("old"), Message.assistant("old answer")]
    assert agent2.call("q").text == "fine"


def test_overflow_without_compaction_reaches_the_caller() -> None:
    error = overflow()
    with ScriptedModel(["a1", error]) as model:
        agent = Agent(model, engine=None)
        agent.call("q1")
        with pytest.raises(ContextLengthExceededError) as info:
            agent.call("q2")
    assert info.value is error
    assert len(model.requests) == 2


def test_overflow_with_nothing_to_compact_reaches_the_caller() -> None:
    error = overflow()
    with ScriptedModel([error]) as model:
        agent = Agent(model, engine=make_engine(count_config(50, 2), model))
        with pytest.raises(ContextLengthExceededError) as info:
            agent.call("the very first message is already too long")
    assert info.value is error


def test_every_compaction_of_a_call_is_reported() -> None:
    summary = FunctionModel(lambda request: "S")
    with ScriptedModel(["a1", overflow(), "a2"]) as model:
        agent = Agent(model, engine=make_engine(count_config(3, 1), model, summary_model=summary))
        agent.call("q1")
        result = agent.call("q2")  # [q1, a1, q2] compacts, then the request overflows
    assert len(summary.requests) == 2
    assert len(result.compactions) == len(summary.requests)


def test_e3_like_cadence(caplog: pytest.LogCaptureFixture) -> None:
    """trigger 5 / keep 2: first compaction in round 3, then every round (E3-FIRST, E3-EVERY)."""
    caplog.set_level(logging.INFO, logger="harness.compaction")
    rounds = [
        "remember the code word 夜莺 and only reply 收到",
        "what is the code word",
        "say it backwards",
        "what was it in round 1",
        "the code word again",
    ]
    script: list[Step] = [Step("A1", purpose="agent"), Step("A2", purpose="agent")]
    for n in range(3, 6):
        script += [Step(f"summary {n}", purpose="summary"), Step(f"A{n}", purpose="agent")]
    with ScriptedModel(script) as model:
        agent = Agent(
            model, system_prompt="You are terse.", engine=make_engine(count_config(5, 2), model)
        )
        results = []
        for text in rounds:
            caplog.clear()
            results.append(agent.call(text))
            lines = [r.getMessage() for r in caplog.records if r.name == "harness.compaction"]
            if len(results) >= 3:
                assert lines[0].startswith("Compaction triggered: total=5 msgs / ")
                assert lines[0].endswith(" tokens, cutoff=3, keeping=2 msgs")
                assert lines[1] == "Compacted to 3 messages before reasoning"
            else:
                assert lines == []

    assert [len(r.compactions) for r in results] == [0, 0, 1, 1, 1]
    for n, result in enumerate(results[2:], start=3):
        (event,) = result.compactions
        assert (event.total_messages, event.cutoff.index, event.keeping) == (5, 3, 2)
        assert event.messages_after == 3
        assert event.summary == f"summary {n}"
    assert [r.context_after for r in results] == [2, 4, 4, 4, 4]
    assert [r.context_before for r in results] == [0, 2, 4, 4, 4]
    # Round 3's request: system, summary, A2, U3.
    round3 = agent_requests(model)[2]
    assert [m.kind for m in round3.messages] == ["system", "summary", "assistant", "user"]
    assert round3.messages[2] == Message.assistant("A2")
    assert round3.messages[3] == Message.user(rounds[2])
    # Round 3's summary saw round 1 and 2; round 4's saw round 3's summary, not round 1.
    summary_inputs = [r.messages[0].content for r in model.requests if r.purpose == "summary"]
    assert rounds[0] in summary_inputs[0]
    assert "summary 3" in summary_inputs[1]
    assert rounds[0] not in summary_inputs[1]
    assert agent.context[0].content == f"{SUMMARY_PREFIX}\n\nsummary 5"


# --- state, transcript, offload ---------------------------------------------------------------


def test_state_store_round_trip_and_continuation(tmp_path: Path) -> None:
    store = JsonStateStore(tmp_path / "state")
    script = [calls(("c1", "add", {"a": 1, "b": 2})), "3"]
    with ScriptedModel(script) as model:
        agent = Agent(model, tools=[ADD], state_store=store, session_id="s-1")
        agent.call("1 + 2?")
    saved = store.load("s-1")
    assert tuple(saved.context) == agent.context
    assert [m.metadata for m in saved.context] == [m.metadata for m in agent.context]
    assert saved.context[2].metadata == {"tool_name": "add"}

    with ScriptedModel(["you asked about 1 + 2"]) as model2:
        again = Agent(model2, tools=[ADD], state_store=store, session_id="s-1")
        assert again.context == agent.context
        again.call("what did I ask?")
    assert model2.requests[0].messages[:4] == agent.context
    assert len(store.load("s-1").context) == 6
    # Another session id starts empty.
    assert store.load("other").context == []


def test_state_is_saved_after_every_change(tmp_path: Path) -> None:
    store = JsonStateStore(tmp_path)
    seen: list[int] = []

    def reply(request: ChatRequest) -> str:
        seen.append(len(store.load("default").context))
        return "ok"

    Agent(FunctionModel(reply), state_store=store).call("hi")
    assert seen == [1]  # the user's message was on disk before the request


def test_transcript_keeps_everything_and_records_compactions(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "session.jsonl")
    config = CompactionConfig.count_only(5, 2, offload_before_compact=True)
    summaries = FunctionModel(lambda request: "S")
    with ScriptedModel([f"A{i}" for i in range(1, 6)]) as model:
        agent = Agent(
            model, engine=make_engine(config, model, summary_model=summaries), transcript=transcript
        )
        for i in range(1, 6):
            agent.call(f"U{i}")

    logged = transcript.messages()
    texts = [m.content for m in logged if not m.is_summary]
    assert texts == [x for i in range(1, 6) for x in (f"U{i}", f"A{i}")]
    assert sum(m.is_summary for m in logged) == 3
    entries = transcript.entries()
    assert [e["seq"] for e in entries] == list(range(len(entries)))
    compactions = [e for e in entries if e["type"] == "compaction"]
    assert len(compactions) == 3
    first_prefix = [Message.from_record(r) for r in compactions[0]["prefix"]]
    assert first_prefix == [Message.user("U1"), Message.assistant("A1"), Message.user("U2")]
    # The compaction record comes before the new summary message.
    first = entries.index(compactions[0])
    assert entries[first + 1]["message"]["name"] == "__compaction_summary__"
    # The working context no longer holds U1, the transcript does.
    assert all(m.content != "U1" for m in agent.context)


def test_transcript_without_offload_has_no_compaction_records(tmp_path: Path) -> None:
    transcript = Transcript(tmp_path / "session.jsonl")
    with ScriptedModel(["A1", "A2", "A3"]) as model:
        engine = make_engine(count_config(3, 1), model, summary_model=FunctionModel(lambda r: "S"))
        agent = Agent(model, engine=engine, transcript=transcript)
        for q in ("U1", "U2", "U3"):
            agent.call(q)
    assert [e for e in transcript.entries() if e["type"] == "compaction"] == []
    assert sum(m.is_summary for m in transcript.messages()) == 2


def test_large_tool_result_is_offloaded_to_the_workspace(tmp_path: Path) -> None:
    payload = "".join(f"line {i:06d}\n" for i in range(10_000))  # 120,000 chars
    assert len(payload) > 80_000

    def dump_log() -> str:
        """Return a huge log."""
        return payload

    tool = Tool.from_function(dump_log)
    script = [calls(("c1", "dump_log", {})), "the log is long"]
    with ScriptedModel(script) as model:
        agent = Agent(model, tools=[tool], workspace=tmp_path)
        agent.call("show me the log")
    result = agent.context[2]
    relative = result.metadata["offloaded_to"]
    assert (tmp_path / relative).read_text(encoding="utf-8") == payload
    assert relative in result.content
    assert len(result.content) < 5_000
    sent = model.requests[1].messages[-1]
    assert sent.content == result.content
    assert payload[:2_000] in sent.content
    assert payload[-2_000:] in sent.content


def test_without_workspace_large_results_stay(tmp_path: Path) -> None:
    payload = "x" * 90_000
    tool = Tool.from_function(lambda: payload, name="dump", parameters={"type": "object"})
    with ScriptedModel([calls(("c1", "dump", {})), "ok"]) as model:
        agent = Agent(model, tools=[tool])
        agent.call("go")
    assert agent.context[2].content == payload


def test_bad_session_id_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        Agent(ScriptedModel([]), state_store=JsonStateStore(tmp_path), session_id="bad id!")


def test_the_request_estimate_prices_only_what_each_request_added(tmp_path: Path) -> None:
    """The record's AgentScope estimate is kept as a running sum: the history is priced once, not
    once per request (a per-turn cost that grew with the session would make it O(n²))."""
    model = FunctionModel(lambda request: "ok")
    agent = Agent(
        model,
        "system",
        state_store=JsonStateStore(tmp_path / "state"),
        transcript=Transcript(tmp_path / "t.jsonl"),
    )
    records = [agent.call(f"question {n}").requests[-1] for n in range(6)]
    assert agent._estimate.resets == 1
    for record, request in zip(records, model.requests, strict=True):  # equal to a full recount
        assert record.estimated_tokens == estimate_tokens(request.messages)
