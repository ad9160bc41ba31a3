"""Tests of harness.testing: the scripted and function models are strict, honest doubles."""

from __future__ import annotations

import pytest

from harness.errors import ContextLengthExceededError, ScriptError, ServerError
from harness.messages import Message, ToolCall
from harness.model import ChatModel, ChatRequest, ChatResponse, Usage
from harness.testing import FunctionModel, ScriptedModel, Step


def request(text: str = "hi", purpose: str = "agent") -> ChatRequest:
    return ChatRequest(messages=(Message.user(text),), purpose=purpose)


def test_both_doubles_are_chat_models() -> None:
    assert isinstance(ScriptedModel([]), ChatModel)
    assert isinstance(FunctionModel(lambda r: "x"), ChatModel)
    assert ScriptedModel([], model_name="m1").model_name == "m1"
    assert FunctionModel(lambda r: "x", model_name="m2").model_name == "m2"


def test_replies_in_order_and_records_requests() -> None:
    tool_use = Message.assistant("", [ToolCall("c1", "f")])
    full = ChatResponse(Message.assistant("full"), usage=Usage(10, 2, 0), model="x")
    model = ScriptedModel(["first", tool_use, full])
    r1, r2, r3 = request("a"), request("b"), request("c")

    first = model.complete(r1)
    assert first.message == Message.assistant("first")
    assert first.finish_reason == "stop"
    assert first.model == "scripted"
    second = model.complete(r2)
    assert second.message is tool_use
    assert second.finish_reason == "tool_calls"
    assert model.complete(r3) is full
    assert model.requests == [r1, r2, r3]
    assert model.requests[1] is r2
    assert model.remaining == 0
    model.assert_used()


def test_unexpected_request_raises_script_error() -> None:
    model = ScriptedModel(["only one"])
    model.complete(request())
    with pytest.raises(ScriptError, match="unexpected request #2"):
        model.complete(request("again"))
    assert len(model.requests) == 2  # the surprise is recorded too


def test_empty_script_rejects_any_request() -> None:
    with pytest.raises(ScriptError):
        ScriptedModel([]).complete(request())


def test_purpose_mismatch_raises_script_error() -> None:
    model = ScriptedModel([Step("S", purpose="summary")])
    with pytest.raises(ScriptError, match=r"'agent'.*expected 'summary'"):
        model.complete(request(purpose="agent"))


def test_matching_purpose_and_unconstrained_steps() -> None:
    model = ScriptedModel([Step("S", purpose="summary"), Step("anything")])
    assert model.complete(request(purpose="summary")).message.content == "S"
    assert model.complete(request(purpose="flush")).message.content == "anything"


def test_unused_steps_fail_at_with_exit() -> None:
    with (
        pytest.raises(ScriptError, match="1 scripted steps were never requested"),
        ScriptedModel(["used", "unused"]) as model,
    ):
        model.complete(request())


def test_with_exit_does_not_mask_the_original_exception() -> None:
    with pytest.raises(KeyError), ScriptedModel(["never used"]):
        raise KeyError("the real problem")


def test_fully_used_script_passes_at_with_exit() -> None:
    with ScriptedModel(["a", "b"]) as model:
        model.complete(request())
        model.complete(request())


def test_assert_used() -> None:
    model = ScriptedModel(["a"])
    with pytest.raises(ScriptError):
        model.assert_used()
    model.complete(request())
    model.assert_used()


def test_scripted_exceptions_are_raised() -> None:
    error = ServerError("boom", status_code=500)
    overflow = ContextLengthExceededError("too long", status_code=400)
    model = ScriptedModel([error, Step(overflow, purpose="agent"), "ok"])
    with pytest.raises(ServerError) as info:
        model.complete(request())
    assert info.value is error
    with pytest.raises(ContextLengthExceededError):
        model.complete(request())
    assert model.complete(request()).message.content == "ok"
    assert len(model.requests) == 3


def test_function_model_sees_the_request() -> None:
    seen: list[ChatRequest] = []

    def echo(req: ChatRequest) -> str:
        seen.append(req)
        return f"{req.purpose}: {req.messages[-1].content.upper()} ({len(req.messages)})"

    model = FunctionModel(echo)
    r = request("shout", purpose="summary")
    response = model.complete(r)
    assert response.message == Message.assistant("summary: SHOUT (1)")
    assert seen == [r]
    assert model.requests == [r]
    assert response.model == "function"


def test_function_model_can_return_messages_responses_and_errors() -> None:
    replies: list[object] = [
        Message.assistant("", [ToolCall("c1", "f")]),
        ChatResponse(Message.assistant("r"), finish_reason="length"),
        ServerError("x", status_code=502),
    ]
    model = FunctionModel(lambda req: replies.pop(0))  # type: ignore[arg-type,return-value]
    assert model.complete(request()).finish_reason == "tool_calls"
    assert model.complete(request()).finish_reason == "length"
    with pytest.raises(ServerError):
        model.complete(request())
    assert len(model.requests) == 3
