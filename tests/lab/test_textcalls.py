"""Tool calls written as JSON text: ``parse_text_tool_calls`` and the ``TextToolCalls`` wrapper."""

from __future__ import annotations

import json

import pytest

from harness.agent import Agent
from harness.messages import Message, ToolCall, validate_pairing
from harness.model import ChatRequest, ChatResponse
from harness.testing import FunctionModel, ScriptedModel
from harness.tools import Tool
from lab.recorder.textcalls import TextToolCalls, parse_text_tool_calls

NAMES = {"memory_search", "read_file", "add"}


def calls(text: str, names: set[str] = NAMES) -> list[tuple[str, dict[str, object]]]:
    """The parsed calls as (name, arguments) pairs."""
    return [(c.name, json.loads(c.arguments)) for c in parse_text_tool_calls(text, names)]


def test_reads_a_fenced_json_block() -> None:
    text = (
        "I will search memory first.\n"
        '```json\n{"name": "memory_search", "arguments": {"query": "夜莺"}}\n```\n'
    )
    (call,) = parse_text_tool_calls(text, NAMES)
    assert call.name == "memory_search"
    assert call.parsed_arguments() == {"query": "夜莺"}
    assert "夜莺" in call.arguments  # kept readable, not \\u-escaped
    assert call.id.startswith("call_text_")


def test_reads_a_fence_without_a_language_tag() -> None:
    text = '```\n{"name": "read_file", "arguments": {"path": "MEMORY.md"}}\n```'
    assert calls(text) == [("read_file", {"path": "MEMORY.md"})]


def test_reads_a_bare_object() -> None:
    assert calls('{"name": "add", "arguments": {"a": 2, "b": 3}}') == [("add", {"a": 2, "b": 3})]


def test_reads_parameters_instead_of_arguments() -> None:
    text = 'Calling: {"name": "add", "parameters": {"a": 1, "b": 1}}'
    assert calls(text) == [("add", {"a": 1, "b": 1})]


def test_reads_arguments_given_as_a_json_string() -> None:
    text = '{"name": "add", "arguments": "{\\"a\\": 4, \\"b\\": 5}"}'
    assert calls(text) == [("add", {"a": 4, "b": 5})]


def test_reads_several_calls_in_order() -> None:
    text = (
        '```json\n{"name": "memory_search", "arguments": {"query": "ALPHA"}}\n```\n'
        "and then\n"
        '```json\n{"name": "read_file", "arguments": {"path": "MEMORY.md"}}\n'
        '{"name": "add", "arguments": {"a": 1, "b": 2}}\n```'
    )
    parsed = parse_text_tool_calls(text, NAMES)
    assert [(c.name, c.parsed_arguments()) for c in parsed] == [
        ("memory_search", {"query": "ALPHA"}),
        ("read_file", {"path": "MEMORY.md"}),
        ("add", {"a": 1, "b": 2}),
    ]
    assert len({c.id for c in parsed}) == 3


@pytest.mark.parametrize(
    "text",
    [
        "The code word is 夜莺.",
        'Use {curly braces} and {"half": json',
        '{"name": "delete_everything", "arguments": {}}',
        '```json\n{"tool": "add", "arguments": {"a": 1}}\n```',
        '{"name": "add", "arguments": [1, 2]}',
        '{"name": "add", "arguments": "not json"}',
        '["add", {"a": 1}]',
    ],
)
def test_ignores_prose_unknown_tools_and_malformed_objects(text: str) -> None:
    assert parse_text_tool_calls(text, NAMES) == ()


def test_ignores_unknown_tools_next_to_known_ones() -> None:
    text = '{"name": "rm_rf", "arguments": {}} {"name": "add", "arguments": {"a": 1, "b": 1}}'
    assert calls(text) == [("add", {"a": 1, "b": 1})]


def test_ids_are_deterministic_for_the_same_text() -> None:
    text = '```json\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n```'
    first, again = parse_text_tool_calls(text, NAMES), parse_text_tool_calls(text, NAMES)
    assert [c.id for c in first] == [c.id for c in again]
    other = parse_text_tool_calls(text.replace("2", "3"), NAMES)
    assert first[0].id != other[0].id


def test_a_malformed_argument_string_is_ignored() -> None:
    assert parse_text_tool_calls('{"name": "add", "arguments": "{bad"}', NAMES) == ()


def test_an_object_without_arguments_is_not_a_call() -> None:
    text = 'My tools: [{"name": "read_file"}, {"name": "memory_search"}]'
    assert parse_text_tool_calls(text, NAMES) == ()


# --- the TextToolCalls wrapper ----------------------------------------------------------------

CALL_TEXT = '```json\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n```'


def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


ADD = Tool.from_function(add)


def test_wrapper_turns_text_into_tool_calls_when_tools_are_offered() -> None:
    inner = FunctionModel(
        lambda r: Message.assistant(CALL_TEXT, reasoning_content="think"), "local-model"
    )
    wrapped = TextToolCalls(inner)
    response = wrapped.complete(
        ChatRequest(messages=(Message.user("2+3?"),), tools=(ADD.schema(),))
    )
    assert wrapped.model_name == "local-model"
    assert response.finish_reason == "tool_calls"
    message = response.message
    assert message.content == ""
    assert [(c.name, c.parsed_arguments()) for c in message.tool_calls] == [
        ("add", {"a": 2, "b": 3})
    ]
    assert message.metadata["tool_calls_from_text"] == CALL_TEXT
    assert message.reasoning_content == "think"
    assert "tool_calls_from_text" not in json.dumps(message.to_wire())


def test_wrapper_leaves_text_alone_without_tools() -> None:
    wrapped = TextToolCalls(FunctionModel(lambda r: CALL_TEXT))
    response = wrapped.complete(ChatRequest(messages=(Message.user("show me JSON"),)))
    assert response.message.content == CALL_TEXT
    assert response.message.tool_calls == ()
    assert response.finish_reason == "stop"


def test_wrapper_leaves_text_naming_tools_that_were_not_offered() -> None:
    other = Tool.from_function(lambda path: path, name="read_file")
    wrapped = TextToolCalls(FunctionModel(lambda r: CALL_TEXT))
    response = wrapped.complete(ChatRequest(messages=(Message.user("x"),), tools=(other.schema(),)))
    assert response.message.content == CALL_TEXT and response.message.tool_calls == ()


def test_wrapper_keeps_real_tool_calls() -> None:
    real = Message.assistant(CALL_TEXT, [ToolCall("call_1", "add", '{"a": 1, "b": 1}')])
    inner = FunctionModel(lambda r: ChatResponse(real, "tool_calls"))
    response = TextToolCalls(inner).complete(
        ChatRequest(messages=(Message.user("x"),), tools=(ADD.schema(),))
    )
    assert response.message is real


def test_agent_loop_runs_a_tool_written_as_text() -> None:
    model = ScriptedModel([CALL_TEXT, "2 + 3 = 5"])
    agent = Agent(TextToolCalls(model), "You can add.", tools=[ADD])
    with model:
        result = agent.call("what is 2 + 3?")
    assert result.tool_calls == ("add",)
    assert result.text == "2 + 3 = 5"
    _, assistant, tool, final = agent.context
    (call,) = assistant.tool_calls
    assert (tool.role, tool.tool_call_id, tool.content) == ("tool", call.id, "5")
    second = model.requests[1]
    assert second.messages[-1] == tool and second.messages[-2] == assistant
    assert final == Message.assistant("2 + 3 = 5")


def test_a_call_repeated_in_a_later_turn_gets_a_fresh_id() -> None:
    model = ScriptedModel([CALL_TEXT, "5", CALL_TEXT, "5 again"])
    agent = Agent(TextToolCalls(model), tools=[ADD])
    with model:
        agent.call("what is 2 + 3?")
        agent.call("and once more?")
    validate_pairing(agent.context)
