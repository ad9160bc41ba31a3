"""Tests of harness.messages: constructors, kinds, wire and record forms, pairing rules."""

from __future__ import annotations

import json

import pytest

from harness.compaction.agentscope import build_summary_message
from harness.compaction.dsh import frame_checkpoint
from harness.errors import PairingError
from harness.messages import CHECKPOINT_NAME, SUMMARY_NAME, Message, ToolCall, validate_pairing


def call(call_id: str, name: str = "lookup", **arguments: object) -> ToolCall:
    return ToolCall(call_id, name, json.dumps(arguments))


# --- constructors and kinds -------------------------------------------------------------------


def test_constructors_set_role_and_fields() -> None:
    calls = [call("c1", city="Hamburg"), call("c2", city="Shanghai")]
    system = Message.system("rules")
    user = Message.user("hi", name="alice")
    assistant = Message.assistant("thinking aloud", calls, reasoning_content="because")
    tool = Message.tool("c1", "sunny", tool_name="lookup")

    assert (system.role, system.content) == ("system", "rules")
    assert (user.role, user.content, user.name) == ("user", "hi", "alice")
    assert assistant.role == "assistant"
    assert assistant.tool_calls == tuple(calls)
    assert assistant.reasoning_content == "because"
    assert (tool.role, tool.tool_call_id, tool.content) == ("tool", "c1", "sunny")
    assert tool.metadata == {"tool_name": "lookup"}
    assert Message.tool("c1", "x").metadata == {}


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        (Message.system("s"), "system"),
        (Message.user("u"), "user"),
        (Message.user("u", name="bob"), "user"),
        (Message.user("s", name=SUMMARY_NAME), "summary"),
        (Message.user("s", name=CHECKPOINT_NAME), "summary"),
        (Message.assistant("a"), "assistant"),
        (Message.assistant("", [ToolCall("c1", "f")]), "tool_use"),
        (Message.assistant("text and a call", [ToolCall("c1", "f")]), "tool_use"),
        (Message.tool("c1", "r"), "tool_result"),
    ],
)
def test_kind(message: Message, kind: str) -> None:
    assert message.kind == kind


def test_is_summary_needs_user_role_and_the_summary_name() -> None:
    assert Message.user("x", name=SUMMARY_NAME).is_summary
    assert not Message.user("x").is_summary
    assert not Message(role="assistant", content="x", name=SUMMARY_NAME).is_summary


def test_summary_kind_names_the_engine_of_either_summary() -> None:
    assert Message.user("x", name=SUMMARY_NAME).summary_kind == "agentscope"
    assert Message.user("x", name=CHECKPOINT_NAME).summary_kind == "dsh"
    assert Message.user("x", name=CHECKPOINT_NAME).is_summary  # a DSH checkpoint is a summary
    assert Message(role="assistant", content="x", name=CHECKPOINT_NAME).summary_kind is None
    assert Message.user("x", name="bob").summary_kind is None
    assert build_summary_message("s").summary_kind == "agentscope"
    assert frame_checkpoint("s").summary_kind == "dsh"


def test_parsed_arguments() -> None:
    assert ToolCall("c", "f", '{"a": 1}').parsed_arguments() == {"a": 1}
    assert ToolCall("c", "f", "").parsed_arguments() == {}
    with pytest.raises(ValueError):
        ToolCall("c", "f", "[1, 2]").parsed_arguments()
    with pytest.raises(ValueError):
        ToolCall("c", "f", "{not json").parsed_arguments()


# --- wire form --------------------------------------------------------------------------------


def test_assistant_with_two_parallel_calls_round_trips_with_empty_content() -> None:
    calls = [call("call_a", "weather", city="Hamburg"), call("call_b", "time", tz="UTC")]
    message = Message.assistant("", calls, reasoning_content="I need both facts.")

    wire = message.to_wire()

    assert wire["content"] == ""
    assert wire["reasoning_content"] == "I need both facts."
    assert [c["id"] for c in wire["tool_calls"]] == ["call_a", "call_b"]
    assert wire["tool_calls"][0] == {
        "id": "call_a",
        "type": "function",
        "function": {"name": "weather", "arguments": calls[0].arguments},
    }
    assert "tool_call_id" not in wire
    assert "name" not in wire
    back = Message.from_wire(json.loads(json.dumps(wire)))
    assert back == message
    assert back.reasoning_content == "I need both facts."


def test_response_message_with_null_content_reads_as_empty_text() -> None:
    data = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
            {"id": "c2", "type": "function", "function": {"name": "g", "arguments": {"y": "ü"}}},
        ],
        "reasoning_content": "r",
    }
    message = Message.from_wire(data)
    assert message.content == ""
    assert message.tool_calls[0] == ToolCall("c1", "f", '{"x": 1}')
    # Arguments given as an object are kept as JSON text.
    assert json.loads(message.tool_calls[1].arguments) == {"y": "ü"}
    # Passed back on the next request as received.
    assert message.to_wire()["reasoning_content"] == "r"
    assert message.to_wire()["content"] == ""


def test_summary_message_keeps_its_name_on_the_wire() -> None:
    summary = Message.user("Here is a summary", name=SUMMARY_NAME)
    wire = summary.to_wire()
    assert wire == {"role": "user", "content": "Here is a summary", "name": SUMMARY_NAME}
    back = Message.from_wire(wire)
    assert back.name == SUMMARY_NAME
    assert back.is_summary


def test_tool_message_wire_form() -> None:
    wire = Message.tool("c9", "result text", tool_name="lookup").to_wire()
    # The tool name is harness metadata, never sent.
    assert wire == {"role": "tool", "content": "result text", "tool_call_id": "c9"}
    assert Message.from_wire(wire) == Message.tool("c9", "result text")


@pytest.mark.parametrize(
    "message",
    [
        Message.system("be brief"),
        Message.user("你好 😀"),
        Message.assistant("plain"),
        Message.tool("c1", "out"),
    ],
)
def test_wire_round_trip(message: Message) -> None:
    assert Message.from_wire(message.to_wire()) == message


def test_record_round_trip_keeps_metadata() -> None:
    tool = Message.tool("c1", "out", tool_name="lookup")
    tool.metadata["offloaded_to"] = "large_tool_results/x.txt"
    record = json.loads(json.dumps(tool.to_record()))
    assert record["metadata"] == {"tool_name": "lookup", "offloaded_to": "large_tool_results/x.txt"}

    back = Message.from_record(record)
    assert back == tool
    assert back.metadata == tool.metadata
    # Metadata never leaks onto the wire.
    assert "metadata" not in tool.to_wire()


def test_record_without_metadata_reads_back_with_empty_metadata() -> None:
    message = Message.user("hi")
    assert "metadata" not in message.to_record()
    assert Message.from_record(message.to_record()).metadata == {}


def test_from_record_does_not_share_metadata_between_messages() -> None:
    record = Message.tool("c1", "x", tool_name="t").to_record()
    first, second = Message.from_record(record), Message.from_record(record)
    first.metadata["extra"] = 1
    assert "extra" not in second.metadata
    assert "extra" not in record["metadata"]


# --- invalid messages -------------------------------------------------------------------------


def test_tool_message_without_call_id_is_rejected() -> None:
    with pytest.raises(ValueError, match="id"):
        Message(role="tool", content="x")
    with pytest.raises(ValueError, match="id"):
        Message.tool("", "x")
    with pytest.raises(ValueError):
        Message.from_wire({"role": "tool", "content": "x"})


def test_tool_calls_on_a_user_message_are_rejected() -> None:
    with pytest.raises(ValueError, match="tool calls"):
        Message(role="user", content="x", tool_calls=(ToolCall("c1", "f"),))
    with pytest.raises(ValueError, match="tool calls"):
        Message.from_wire(
            {
                "role": "user",
                "content": "x",
                "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{}"}}],
            }
        )


def test_unknown_role_is_rejected() -> None:
    with pytest.raises(ValueError, match="role"):
        Message(role="developer", content="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="role"):
        Message.from_wire({"role": "function", "content": "x"})
    with pytest.raises(ValueError, match="role"):
        Message.from_wire({"content": "no role at all"})


# --- validate_pairing -------------------------------------------------------------------------


def pairing_error(history: list[Message]) -> PairingError:
    """The error :func:`validate_pairing` raises on ``history`` (the test fails if none)."""
    with pytest.raises(PairingError) as info:
        validate_pairing(history)
    return info.value


def test_valid_histories_pass() -> None:
    calls = [call("a"), call("b"), call("c")]
    history = [
        Message.system("s"),
        Message.user("q"),
        Message.assistant("", calls),
        # Parallel results may come in any order.
        Message.tool("c", "3"),
        Message.tool("a", "1"),
        Message.tool("b", "2"),
        Message.assistant("done"),
        Message.user("again"),
        Message.assistant("", [call("d")]),
        Message.tool("d", "4"),
        Message.assistant("ok"),
    ]
    validate_pairing(history)
    validate_pairing([])
    validate_pairing([Message.user("only text"), Message.assistant("reply")])


def test_a_pending_call_at_the_very_end_is_allowed() -> None:
    validate_pairing([Message.user("q"), Message.assistant("", [call("a")])])
    # Partly answered parallel calls at the very end: tools still running.
    validate_pairing(
        [Message.user("q"), Message.assistant("", [call("a"), call("b")]), Message.tool("a", "1")]
    )


def test_result_without_call() -> None:
    history = [Message.user("q"), Message.assistant("a"), Message.tool("ghost", "r")]
    error = pairing_error(history)
    assert error.index == 2
    assert "index 2" in str(error)
    assert "ghost" in str(error)
    assert "no earlier call" in str(error)


def test_result_answering_a_call_twice() -> None:
    history = [
        Message.user("q"),
        Message.assistant("", [call("a")]),
        Message.tool("a", "1"),
        Message.tool("a", "1 again"),
    ]
    error = pairing_error(history)
    assert error.index == 3
    assert "index 3" in str(error)
    assert "twice" in str(error)


def test_call_without_result_followed_by_a_user_message() -> None:
    history = [
        Message.user("q"),
        Message.assistant("x"),
        Message.assistant("", [call("a"), call("b")]),
        Message.tool("a", "1"),
        Message.user("next"),
    ]
    error = pairing_error(history)
    # The offending message is the assistant holding the unanswered call.
    assert error.index == 2
    text = str(error)
    assert "'b'" in text
    assert "index 2" in text
    assert "user message at index 4" in text


def test_call_without_result_followed_by_an_assistant_message() -> None:
    history = [Message.user("q"), Message.assistant("", [call("a")]), Message.assistant("x")]
    error = pairing_error(history)
    assert error.index == 1
    assert "assistant message at index 2" in str(error)


def test_reused_call_id_in_a_later_message() -> None:
    history = [
        Message.user("q"),
        Message.assistant("", [call("a")]),
        Message.tool("a", "1"),
        Message.assistant("", [call("a")]),
        Message.tool("a", "2"),
    ]
    error = pairing_error(history)
    assert error.index == 3
    assert "reused" in str(error)
    assert "index 3" in str(error)


def test_reused_call_id_within_one_message() -> None:
    history = [Message.user("q"), Message.assistant("", [call("a"), call("a")])]
    error = pairing_error(history)
    assert error.index == 1
    assert "reused" in str(error)


# --- content blocks: read, or refused, never "" ----------------------------------------------


def test_from_wire_reads_text_reasoning_and_tool_call_blocks() -> None:
    message = Message.from_wire(
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "read the file "},
                {"type": "thinking", "thinking": "first"},
                {"type": "text", "text": "Let me "},
                {"type": "output_text", "text": "look."},
                {"type": "tool-call", "id": "c1", "name": "read_file", "arguments": '{"p":1}'},
                {"type": "tool_use", "id": "c2", "name": "ls", "input": {"path": "."}},
            ],
        }
    )
    assert message.content == "Let me look."
    assert message.reasoning_content == "read the file first"
    assert message.tool_calls == (
        ToolCall("c1", "read_file", '{"p":1}'),
        ToolCall("c2", "ls", '{"path": "."}'),
    )


def test_from_wire_reads_a_tool_result_block_as_the_tool_message_text() -> None:
    block = {"type": "tool-result", "toolCallId": "c1", "content": [{"type": "text", "text": "ok"}]}
    message = Message.from_wire({"role": "tool", "content": [block]})
    assert (message.tool_call_id, message.content) == ("c1", "ok")


@pytest.mark.parametrize(
    "content",
    [
        [{"type": "image", "attachment": {"attachmentId": "sha256:x"}}],
        [{"type": "text"}],
        [{"type": "video_url", "video_url": "x"}],
        {"type": "text", "text": "a mapping, not a list"},
        42,
    ],
)
def test_from_wire_refuses_content_it_cannot_read(content: object) -> None:
    from harness.errors import ContentFormatError

    with pytest.raises(ContentFormatError):
        Message.from_wire({"role": "assistant", "content": content})


def test_a_reply_with_content_blocks_keeps_its_reasoning_and_tool_calls() -> None:
    from harness.errors import ResponseFormatError
    from harness.replies import read_completion

    body = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "plan"},
                        {"type": "text", "text": "Calling."},
                        {"type": "tool_use", "id": "c9", "name": "ls", "input": {}},
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    message = read_completion(body, "m").message
    assert (message.content, message.reasoning_content) == ("Calling.", "plan")
    assert message.tool_calls == (ToolCall("c9", "ls", "{}"),)
    body["choices"][0]["message"]["content"] = [{"type": "image_url", "image_url": {"url": "x"}}]
    with pytest.raises(ResponseFormatError, match="image_url"):
        read_completion(body, "m")
