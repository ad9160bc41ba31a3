"""Only a context-length error enters overflow recovery; every other provider error reaches the
caller as it is, with no compaction and no retry.

Both seeds say so (AgentScope's recovery is for a context overflow, DeepSeek-Harness's for
CONTEXT_WINDOW_EXCEEDED). A mutation that made recovery catch any 400 passed every test: an
ordinary 400 (a bad tool name, say) then set off a lossy compaction and a silent retry.
"""

from __future__ import annotations

import pytest

from harness import Agent, CompactionConfig, FunctionModel, Message, make_engine
from harness.compaction.dsh import DshConfig
from harness.errors import (
    APIStatusError,
    BadRequestError,
    ContextLengthExceededError,
    RateLimitError,
    ServerError,
)
from harness.model import ChatRequest
from harness.store.eventlog import EventLog, EventLogHistory

ERRORS = {
    "400": BadRequestError("tool name 'x y' is invalid", status_code=400),
    "429": RateLimitError("slow down", status_code=429),
    "500": ServerError("upstream failed", status_code=500),
}
ENGINES = {
    "agentscope": CompactionConfig(trigger_messages=50, keep_messages=2),
    "dsh": DshConfig(),
}


def _agent(error: APIStatusError, engine: str) -> tuple[Agent, list[ChatRequest], list[int]]:
    summaries: list[ChatRequest] = []
    calls = [0]

    def answer(request: ChatRequest) -> Message:
        if request.purpose != "agent":
            summaries.append(request)
            return Message.assistant("## Summary\n- earlier turns")
        calls[0] += 1
        raise error

    model = FunctionModel(answer)
    history = EventLogHistory(EventLog())  # in memory; the DSH engine needs an event log
    for n in range(6):
        history.append([Message.user(f"question {n} " + "x" * 400), Message.assistant("ok")])
    compaction = make_engine(ENGINES[engine], model, history=history)
    agent = Agent(model, engine=compaction, history=history)
    return agent, summaries, calls


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("status", ERRORS)
def test_a_provider_error_that_is_not_an_overflow_reaches_the_caller_untouched(
    status: str, engine: str
) -> None:
    error = ERRORS[status]
    agent, summaries, calls = _agent(error, engine)
    before = list(agent.context)
    with pytest.raises(type(error)) as raised:
        agent.call("next question")
    assert raised.value is error
    assert summaries == [] and calls[0] == 1  # no compaction, no retry
    assert list(agent.context)[: len(before)] == before  # nothing summarised away


@pytest.mark.parametrize("engine", ENGINES)
def test_an_overflow_still_compacts_once_and_retries(engine: str) -> None:
    """The other side: the same setup with a context-length error does recover."""
    overflow = ContextLengthExceededError("maximum context length exceeded", status_code=400)
    agent, summaries, calls = _agent(overflow, engine)
    with pytest.raises(ContextLengthExceededError):
        agent.call("next question")  # the model overflows on the retry too
    assert len(summaries) >= 1 and calls[0] == 2
