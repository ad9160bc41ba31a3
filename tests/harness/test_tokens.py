"""Tests of harness.meter.pricers' AgentScope estimator rule and harness.meter.windows' lookup.

Expected values are derived in the test from the documented rule, with an independent count of
UTF-16 units (a non-BMP character is a surrogate pair, 2 units) and integer ceiling division.
"""

from __future__ import annotations

import pytest

from harness.messages import SUMMARY_NAME, Message, ToolCall
from harness.meter.pricers import estimate_message_tokens, estimate_text_tokens, estimate_tokens
from harness.meter.windows import (
    AGENTSCOPE_2_0_3_WINDOWS,
    CTXLAB_WINDOWS,
    WINDOW_PROFILES,
    lookup_window,
)


def utf16_units(text: str) -> int:
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


def rule(text: str | None) -> int:
    """ceil(units / 2.5) = ceil(2 * units / 5), in integers."""
    if not text:
        return 0
    return -(-2 * utf16_units(text) // 5)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        (None, 0),
        ("a", 1),  # 1 / 2.5 = 0.4 → 1
        ("hello", 2),  # 5 / 2.5 = 2 exactly
        ("abcdef", 3),  # 2.4 → 3
        ("abcdefg", 3),  # 2.8 → 3
        ("0123456789", 4),
        ("你好世界", 2),  # CJK: 4 units, same rate as Latin (no CJK rule): 1.6 → 2
        ("上海港出口", 2),  # 5 units → 2
        ("😀", 1),  # one non-BMP character = 2 UTF-16 units: 0.8 → 1
        ("😀😀😀", 3),  # 6 units → 2.4 → 3 (as 3 code points it would be 2)
        ("a😀b", 2),  # 4 units → 1.6 → 2
    ],
)
def test_text_rule(text: str | None, expected: int) -> None:
    assert rule(text) == expected  # the hand value agrees with the documented formula
    assert estimate_text_tokens(text) == expected


def test_text_rule_on_long_mixed_text() -> None:
    text = "订舱 booking 🚢" * 37
    assert estimate_text_tokens(text) == rule(text)
    assert utf16_units(text) > len(text)  # the ship is counted twice


def test_role_costs() -> None:
    assert estimate_text_tokens("USER") == 2
    assert estimate_text_tokens("ASSISTANT") == 4
    assert estimate_text_tokens("SYSTEM") == 3
    assert estimate_text_tokens("TOOL") == 2


@pytest.mark.parametrize(
    "message",
    [
        Message.user("hello"),
        Message.user("我们有一批电子元件要出口"),
        Message.system("You are a freight assistant."),
        Message.assistant("Sure, 2×40HQ 🚢"),
        Message.user("named", name="alice"),
    ],
)
def test_text_message_cost_is_5_plus_role_plus_name_plus_text(message: Message) -> None:
    expected = 5 + rule(message.role.upper()) + rule(message.name) + rule(message.content)
    assert estimate_message_tokens(message) == expected


def test_plain_user_message_by_hand() -> None:
    # 5 + USER (2) + "hello" (2)
    assert estimate_message_tokens(Message.user("hello")) == 9


def test_summary_message_counts_its_name() -> None:
    message = Message.user("Here is a summary", name=SUMMARY_NAME)
    expected = 5 + 2 + rule(SUMMARY_NAME) + rule("Here is a summary")
    assert estimate_message_tokens(message) == expected
    assert estimate_message_tokens(message) > estimate_message_tokens(Message.user(message.content))


def test_tool_call_cost() -> None:
    calls = [
        ToolCall("call_1", "lookup_schedule", '{"origin": "CNSHA", "week": "2026-W45"}'),
        ToolCall("call_2", "get_time", "{}"),
    ]
    message = Message.assistant("checking", calls)
    expected = 5 + rule("ASSISTANT") + rule("checking")
    for c in calls:
        expected += 10 + rule(c.name) + rule(c.id) + rule(c.arguments)
    assert estimate_message_tokens(message) == expected


def test_tool_call_only_message_by_hand() -> None:
    message = Message.assistant("", [ToolCall("c1", "f", "{}")])
    # 5 + ASSISTANT (4) + content 0 + call: 10 + "f" (1) + "c1" (1) + "{}" (1)
    assert estimate_message_tokens(message) == 22


def test_tool_result_cost() -> None:
    message = Message.tool("call_1", "船期: 11-05 COSCO", tool_name="lookup_schedule")
    expected = (
        5 + rule("TOOL") + 8 + rule("lookup_schedule") + rule("call_1") + rule(message.content)
    )
    assert estimate_message_tokens(message) == expected
    # Without a tool name the name costs nothing.
    anonymous = Message.tool("call_1", message.content)
    assert estimate_message_tokens(anonymous) == expected - rule("lookup_schedule")


def test_estimate_tokens_is_the_sum() -> None:
    messages = [
        Message.user("hi"),
        Message.assistant("", [ToolCall("c1", "f", '{"a": 1}')]),
        Message.tool("c1", "x" * 101, tool_name="f"),
        Message.assistant("done"),
    ]
    assert estimate_tokens(messages) == sum(estimate_message_tokens(m) for m in messages)
    assert estimate_tokens([]) == 0
    assert estimate_tokens(iter(messages)) == estimate_tokens(messages)


# --- context windows --------------------------------------------------------------------------

TABLE = {"gpt-4": 8_192, "gpt-4o": 128_000, "Claude-": 200_000}


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("gpt-4", 8_192),
        ("gpt-4-turbo", 8_192),
        ("gpt-4o", 128_000),
        ("gpt-4o-mini", 128_000),  # longest prefix wins over "gpt-4"
        ("GPT-4O-2024-08-06", 128_000),  # case-insensitive model name
        ("claude-3-opus", 200_000),  # case-insensitive table key
        ("gpt-3.5-turbo", 0),
        ("my-gpt-4o", 0),  # a prefix, not a substring
        ("", 0),
    ],
)
def test_lookup_window_longest_prefix(model: str, window: int) -> None:
    assert lookup_window(model, TABLE) == window


def test_longest_prefix_does_not_depend_on_table_order() -> None:
    reversed_table = dict(reversed(list(TABLE.items())))
    for model in ("gpt-4o-mini", "gpt-4-0613"):
        assert lookup_window(model, reversed_table) == lookup_window(model, TABLE)


def test_deepseek_flash_in_the_two_tables() -> None:
    assert lookup_window("deepseek-flash", CTXLAB_WINDOWS) == 1_000_000
    assert lookup_window("deepseek-flash") == 1_000_000  # ctxlab's table is the default
    assert lookup_window("deepseek-flash", AGENTSCOPE_2_0_3_WINDOWS) == 0
    assert lookup_window("deepseek-v4-flash", AGENTSCOPE_2_0_3_WINDOWS) == 1_000_000
    assert WINDOW_PROFILES["ctxlab"] is CTXLAB_WINDOWS
    assert WINDOW_PROFILES["agentscope-2.0.3"] is AGENTSCOPE_2_0_3_WINDOWS


def test_window_tables_are_read_only() -> None:
    with pytest.raises(TypeError):
        CTXLAB_WINDOWS["new-model"] = 1  # type: ignore[index]
