"""Property tests of compaction: whatever the history and the settings, pairs stay whole.

Histories are built from text turns, assistant messages with 1–3 parallel tool calls followed by
their results (in any order), an optional old summary at the start and, sometimes, a pending
call at the very end. The hypothesis profile (``fast`` or ``thorough``) is chosen in conftest.py.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from hypothesis import event, given, note
from hypothesis import strategies as st

from harness.compaction.agentscope import (
    CompactionConfig,
    Compactor,
    PruneConfig,
    TruncateArgsConfig,
    build_summary_message,
    find_safe_cutoff,
    resolve_thresholds,
)
from harness.messages import Message, ToolCall, validate_pairing
from harness.meter.pricers import estimate_tokens
from harness.model import ChatRequest
from harness.testing import FunctionModel

FIXED_SUMMARY = "FIXED SUMMARY TEXT"

texts = st.text(max_size=60)
tool_names = st.sampled_from(["lookup", "grep", "read_file", "fetch"])
blocks = st.one_of(st.just("user"), st.just("assistant"), st.integers(min_value=1, max_value=3))


@st.composite
def histories(draw: st.DrawFn) -> list[Message]:
    ids = itertools.count()
    messages: list[Message] = []
    if draw(st.booleans()):
        messages.append(build_summary_message("OLD SUMMARY " + draw(texts)))

    def tool_block(count: int, answered: int) -> None:
        call_ids = [f"call_{next(ids)}" for _ in range(count)]
        names = [draw(tool_names) for _ in call_ids]
        content = draw(st.sampled_from(["", "let me check"]))
        messages.append(
            Message.assistant(
                content,
                [ToolCall(i, n, f'{{"q": "{i}"}}') for i, n in zip(call_ids, names, strict=True)],
            )
        )
        order = draw(st.permutations(range(count)))
        for position in order[:answered]:
            messages.append(
                Message.tool(call_ids[position], draw(texts), tool_name=names[position])
            )

    for block in draw(st.lists(blocks, max_size=14)):
        marker = f"<m{len(messages)}>"
        if block == "user":
            messages.append(Message.user(marker + draw(texts)))
        elif block == "assistant":
            messages.append(Message.assistant(marker + draw(texts)))
        else:
            tool_block(block, block)
    if draw(st.booleans()):  # a pending call at the very end: the tools are still running
        count = draw(st.integers(min_value=1, max_value=3))
        tool_block(count, draw(st.integers(min_value=0, max_value=count - 1)))
    return messages


def summariser() -> FunctionModel:
    return FunctionModel(lambda request: FIXED_SUMMARY)


def last_user_message(messages: list[Message]) -> Message | None:
    users = [m for m in messages if m.role == "user" and not m.is_summary]
    return users[-1] if users else None


def call_ids(messages: list[Message]) -> set[str]:
    return {c.id for m in messages for c in m.tool_calls}


def result_ids(messages: list[Message]) -> set[str]:
    return {m.tool_call_id or "" for m in messages if m.role == "tool"}


@given(histories())
def test_generated_histories_are_valid(history: list[Message]) -> None:
    validate_pairing(history)


@given(histories(), st.data())
def test_compaction_keeps_pairs_and_the_tail(history: list[Message], data: st.DataObject) -> None:
    keep = data.draw(st.integers(min_value=1, max_value=len(history) + 2), label="keep")
    # Any trigger above keep, biased towards values the history reaches.
    trigger = data.draw(
        st.one_of(
            st.integers(min_value=keep + 1, max_value=max(keep + 1, len(history))),
            st.integers(min_value=keep + 1, max_value=len(history) + 4),
        ),
        label="trigger",
    )
    config = CompactionConfig.count_only(trigger, keep)
    model = summariser()
    compactor = Compactor(config, resolve_thresholds(config, model.model_name), model)

    result = compactor.compact_if_needed(history)

    cutoff = find_safe_cutoff(history, keep).index
    note(f"len={len(history)} keep={keep} trigger={trigger} cutoff={cutoff}")
    event("old summary at start" if history and history[0].is_summary else "no old summary")
    if len(history) < trigger or cutoff == 0:
        event("not triggered" if len(history) < trigger else "triggered, cutoff 0")
        assert result is None
        assert model.requests == []
        return
    assert result is not None
    event("compacted, cutoff moved" if result.event.cutoff.moved else "compacted")
    output = list(result.messages)
    validate_pairing(output)
    assert output[0].is_summary
    assert output[0].content.endswith(FIXED_SUMMARY)
    assert not any(m.is_summary for m in output[1:])
    tail = output[1:]
    assert len(tail) >= min(keep, len(history))
    assert tail == history[len(history) - len(tail) :]
    assert all(a is b for a, b in zip(tail, history[len(history) - len(tail) :], strict=True))
    assert result.event.cutoff.index == len(history) - len(tail) == cutoff
    # The summariser saw exactly one request: one user message.
    (request,) = model.requests
    assert isinstance(request, ChatRequest)
    assert [m.role for m in request.messages] == ["user"]
    summary_input = request.messages[0].content
    if history[-1].role == "user":
        assert output[-1] is history[-1]
    last_user = last_user_message(history)
    if last_user is not None:
        assert any(m is last_user for m in tail) or last_user.content in summary_input
    # Nothing of the old summary is lost: it went to the summariser.
    if history[0].is_summary:
        assert history[0].content in summary_input


@given(histories(), st.data())
def test_safe_cutoff_count_mode(history: list[Message], data: st.DataObject) -> None:
    keep = data.draw(st.integers(min_value=1, max_value=len(history) + 2), label="keep")
    cutoff = find_safe_cutoff(history, keep)
    check_cutoff(history, cutoff.index)
    naive = max(len(history) - keep, 0)
    assert cutoff.naive_index == naive
    assert cutoff.index <= naive
    if keep >= len(history):
        assert cutoff.index == 0
    event("moved" if cutoff.moved else "not moved")
    if cutoff.index != naive:
        assert history[naive].role == "tool"
        assert history[naive].tool_call_id in call_ids([history[cutoff.index]])


@given(histories(), st.data())
def test_safe_cutoff_token_mode(history: list[Message], data: st.DataObject) -> None:
    total = estimate_tokens(history)
    keep_tokens = data.draw(st.integers(min_value=1, max_value=total + 50), label="keep_tokens")
    keep = data.draw(st.integers(min_value=1, max_value=len(history) + 2), label="keep")
    cutoff = find_safe_cutoff(history, keep, keep_tokens)
    check_cutoff(history, cutoff.index)
    naive = cutoff.naive_index
    event("moved" if cutoff.moved else "not moved")
    assert cutoff.index <= naive
    if total <= keep_tokens:
        assert naive == 0
    elif history:
        # The longest suffix within the budget, but at least one message.
        assert naive <= len(history) - 1
        if naive < len(history) - 1:
            assert estimate_tokens(history[naive:]) <= keep_tokens
        if naive > 0:
            assert estimate_tokens(history[naive - 1 :]) > keep_tokens


def check_cutoff(history: list[Message], index: int) -> None:
    """No tool result right at the cutoff whose call is before it; no pair split."""
    assert 0 <= index <= len(history)
    if index < len(history) and history[index].role == "tool":
        assert history[index].tool_call_id not in call_ids(history[:index])
    if index > 0:
        prefix, tail = history[:index], history[index:]
        assert call_ids(prefix) == result_ids(prefix)
        validate_pairing(tail)


@given(histories(), st.data())
def test_the_plans_price_moves_only_by_what_the_prune_and_truncate_changed(
    history: list[Message], data: st.DataObject
) -> None:
    """With a reading, the plan prices the request as the reading plus what steps 1-2 changed;
    it finds that by identity (an unchanged message is the same object) and must equal the full
    recount ``reading + price(working) - price(original)``."""
    long = data.draw(st.text(min_size=30, max_size=90), label="long tool output")
    history = [
        Message.tool(m.tool_call_id or "", m.content + long, tool_name=m.metadata["tool_name"])
        if m.role == "tool" and data.draw(st.booleans())
        else m
        for m in history
    ]
    prune = PruneConfig(
        protect_tokens=data.draw(st.integers(0, 40)), minimum_tokens=1, max_output_chars=20
    )
    truncate = TruncateArgsConfig(
        trigger_messages=1, keep_messages=data.draw(st.integers(1, 4)), max_arg_length=3
    )
    config = replace(CompactionConfig.count_only(2, 1), prune=prune, truncate_args=truncate)
    model = summariser()
    compactor = Compactor(config, resolve_thresholds(config, model.model_name), model)
    price = compactor.meter.price_all
    reading = compactor.meter.read(1_000 + price(history))  # a header of 1,000 tokens
    plan = compactor.plan(history, reading, force=True)
    working = compactor._shrink_tool_traffic(history)
    event("something pruned or truncated" if working != history else "nothing changed")
    if plan is not None:
        assert plan.tokens == reading.tokens + price(working) - price(history)
