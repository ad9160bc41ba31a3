"""Tests of harness.compaction.agentscope.cutoff.find_safe_cutoff in count and token mode."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.compaction.agentscope import find_safe_cutoff
from harness.messages import Message, ToolCall, validate_pairing
from harness.meter import Ledger
from harness.meter.pricers import estimate_message_tokens, estimate_tokens


def e1_like() -> list[Message]:
    """Nine messages with the lookup call at index 6 and its result at 7 (E1's shape)."""
    call = ToolCall("call_schedule_1", "lookup_schedule", '{"week": "2026-W45"}')
    return [
        Message.assistant("hello, freight assistant here"),
        Message.user("2×40HQ Shanghai to Hamburg"),
        Message.assistant("noted; carrier preference?"),
        Message.user("Maersk or COSCO, ≤ USD 2800"),
        Message.assistant("any lithium batteries?"),
        Message.user("no; look up next week's sailings"),
        Message.assistant("", [call]),
        Message.tool(call.id, '{"sailings": 2}', tool_name=call.name),
        Message.assistant("two sailings, COSCO recommended"),
    ]


def test_e1_by_hand() -> None:
    messages = e1_like()
    cutoff = find_safe_cutoff(messages, keep_messages=2)
    naive = len(messages) - 2
    assert messages[naive].role == "tool"
    assert cutoff.naive_index == naive == 7
    assert cutoff.index == 6
    assert messages[cutoff.index].tool_calls[0].id == messages[naive].tool_call_id
    assert cutoff.moved
    assert "7" in cutoff.reason
    assert "6" in cutoff.reason
    assert len(messages) - cutoff.index == 3  # one more message kept than asked


def parallel_history() -> list[Message]:
    calls = [ToolCall(f"p{i}", "fetch", f'{{"i": {i}}}') for i in range(3)]
    return [
        Message.user("q1"),
        Message.assistant("a1"),
        Message.user("fetch three things"),
        Message.assistant("", calls),  # index 3
        Message.tool("p0", "r0"),
        Message.tool("p1", "r1"),
        Message.tool("p2", "r2"),  # index 6
        Message.assistant("combined answer"),
        Message.user("thanks"),
    ]


@pytest.mark.parametrize("naive", [4, 5, 6])
def test_parallel_calls_cutoff_on_any_result_moves_to_the_assistant(naive: int) -> None:
    messages = parallel_history()
    keep = len(messages) - naive
    cutoff = find_safe_cutoff(messages, keep)
    assert cutoff.naive_index == naive
    assert cutoff.index == 3
    assert messages[3].tool_calls
    validate_pairing(messages[cutoff.index :])


def test_parallel_results_out_of_order() -> None:
    calls = [ToolCall(f"p{i}", "fetch") for i in range(3)]
    messages = [
        Message.user("go"),
        Message.assistant("", calls),
        Message.tool("p2", "r2"),
        Message.tool("p0", "r0"),
        Message.tool("p1", "r1"),
        Message.assistant("done"),
    ]
    # Naive cutoff 4 lands on the result for p1; the set of ids in the run finds the call.
    assert find_safe_cutoff(messages, 2).index == 1


@pytest.mark.parametrize("keep", [1, 2, 6, 7, 8])
def test_cutoff_on_a_non_tool_message_stays(keep: int) -> None:
    messages = parallel_history()
    naive = len(messages) - keep
    assert messages[naive].role != "tool"
    cutoff = find_safe_cutoff(messages, keep)
    assert cutoff.index == cutoff.naive_index == naive
    assert not cutoff.moved
    assert "count mode" in cutoff.reason


def test_cutoff_on_the_assistant_that_calls_stays() -> None:
    messages = e1_like()
    cutoff = find_safe_cutoff(messages, keep_messages=3)
    assert cutoff.index == cutoff.naive_index == 6


@pytest.mark.parametrize("extra", [0, 1, 5])
def test_keep_at_least_the_history_length_gives_zero(extra: int) -> None:
    messages = e1_like()
    cutoff = find_safe_cutoff(messages, len(messages) + extra)
    assert cutoff.index == 0
    assert cutoff.naive_index == 0


def test_empty_history() -> None:
    assert find_safe_cutoff([], 2).index == 0
    assert find_safe_cutoff([], 2, keep_tokens=100).index == 0


def test_result_whose_call_is_at_index_zero_gives_zero() -> None:
    messages = [
        Message.assistant("", [ToolCall("c1", "f")]),
        Message.tool("c1", "r"),
        Message.assistant("done"),
    ]
    cutoff = find_safe_cutoff(messages, 2)
    assert cutoff.naive_index == 1
    assert cutoff.index == 0  # nothing can be compacted


# --- token mode -------------------------------------------------------------------------------


def longest_suffix_within(messages: list[Message], budget: int) -> int:
    """Independent reference: the smallest start whose suffix fits the budget."""
    for start in range(len(messages) + 1):
        if estimate_tokens(messages[start:]) <= budget:
            return start
    return len(messages)


@pytest.mark.parametrize("budget", [30, 45, 60, 100, 150])
def test_token_mode_keeps_the_longest_suffix_within_the_budget(budget: int) -> None:
    messages = [Message.user("x" * (10 * (i + 1))) for i in range(8)]
    assert estimate_tokens(messages) > budget
    cutoff = find_safe_cutoff(messages, keep_messages=1, keep_tokens=budget)
    expected = min(longest_suffix_within(messages, budget), len(messages) - 1)
    assert cutoff.naive_index == expected
    assert cutoff.index == expected
    assert "token mode" in cutoff.reason
    if expected < len(messages) - 1:
        assert estimate_tokens(messages[cutoff.index :]) <= budget
        assert estimate_tokens(messages[cutoff.index - 1 :]) > budget


def test_token_mode_ignores_keep_messages() -> None:
    messages = [Message.user("y" * 50) for _ in range(6)]
    per_message = estimate_message_tokens(messages[0])
    a = find_safe_cutoff(messages, keep_messages=1, keep_tokens=2 * per_message)
    b = find_safe_cutoff(messages, keep_messages=5, keep_tokens=2 * per_message)
    assert a.index == b.index == 4


def test_token_mode_always_keeps_at_least_one_message() -> None:
    messages = [Message.user("short"), Message.assistant("z" * 1000)]
    cutoff = find_safe_cutoff(messages, keep_messages=5, keep_tokens=10)
    assert estimate_message_tokens(messages[-1]) > 10
    assert cutoff.index == 1


def test_token_mode_everything_fits_gives_zero() -> None:
    messages = e1_like()
    total = estimate_tokens(messages)
    assert find_safe_cutoff(messages, 2, keep_tokens=total).index == 0
    assert find_safe_cutoff(messages, 2, keep_tokens=total + 1000).index == 0
    assert find_safe_cutoff(messages, 2, keep_tokens=total - 1).index > 0


def test_token_mode_moves_off_a_tool_result() -> None:
    messages = e1_like()
    budget = estimate_tokens(messages[7:])  # exactly the tool result and the answer
    cutoff = find_safe_cutoff(messages, keep_messages=1, keep_tokens=budget)
    assert cutoff.naive_index == 7
    assert cutoff.index == 6


# --- broken histories -------------------------------------------------------------------------


def test_orphan_tool_result_moves_forward_past_the_tool_run() -> None:
    messages = [
        Message.user("q"),
        Message.assistant("a"),
        Message.tool("ghost1", "orphan 1"),  # index 2: no call anywhere
        Message.tool("ghost2", "orphan 2"),
        Message.user("next"),  # index 4
        Message.assistant("answer"),
    ]
    cutoff = find_safe_cutoff(messages, keep_messages=4)
    assert cutoff.naive_index == 2
    assert cutoff.index == 4
    assert "no call" in cutoff.reason
    validate_pairing(messages[cutoff.index :])


# --- the kept tail from a ledger's running sums -------------------------------------------------

_shapes = st.lists(  # few distinct prices, 0 among them: equal running sums, exact boundaries
    st.tuples(st.sampled_from(["user", "assistant", "call", "tool"]), st.sampled_from([0, 1, 7])),
    max_size=30,
)


def _history(shapes: list[tuple[str, int]]) -> tuple[list[Message], dict[int, int]]:
    """Messages of the drawn roles and a price of each (0 included), by the message's id."""
    messages: list[Message] = []
    prices: dict[int, int] = {}
    for n, (role, price) in enumerate(shapes):
        if role == "call":
            message = Message.assistant("", [ToolCall(f"c{n}", "grep")])
        elif role == "tool":
            message = Message.tool(f"c{n - 1}", "hit")  # may answer no call: an orphan
        else:
            message = Message.user("q") if role == "user" else Message.assistant("a")
        messages.append(message)
        prices[id(message)] = price
    return messages, prices


@given(_shapes, st.integers(0, 30), st.integers(-1, 1), st.integers(1, 5))
def test_a_ledgers_sums_give_the_cutoff_the_walk_gives(
    shapes: list[tuple[str, int]], tail: int, off: int, keep_messages: int
) -> None:
    messages, prices = _history(shapes)
    keep_tokens = max(sum(p for _, p in shapes[len(shapes) - tail :]) + off, 1)  # a tail's price

    def price(message: Message) -> int:
        return prices[id(message)]

    ledger: Ledger[Message] = Ledger(price)
    ledger.sync(messages)
    walked = find_safe_cutoff(messages, keep_messages, keep_tokens, price)
    assert find_safe_cutoff(messages, keep_messages, keep_tokens, price, ledger) == walked
