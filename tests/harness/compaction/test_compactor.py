"""Tests of harness.compaction: the compactor's seven steps with a scripted summariser."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.compaction.agentscope import (
    SUMMARY_PREFIX,
    SUMMARY_UNAVAILABLE,
    Compaction,
    CompactionConfig,
    CompactionRecord,
    Compactor,
    PrefixHook,
    PruneConfig,
    TruncateArgsConfig,
    build_summary_message,
    find_safe_cutoff,
    prune_tool_results,
    resolve_thresholds,
    truncate_tool_arguments,
)
from harness.compaction.agentscope.engine import AgentScopeEngine
from harness.errors import ScriptError, ServerError
from harness.messages import SUMMARY_NAME, Message, ToolCall, validate_pairing
from harness.meter import build_meter
from harness.meter.pricers import estimate_message_tokens, estimate_tokens
from harness.model import ChatModel, ChatRequest
from harness.testing import FunctionModel, ScriptedModel, Step

SECTIONS = ("SESSION INTENT", "SUMMARY", "ARTIFACTS", "NEXT STEPS")

COUNT = CompactionConfig.count_only(4, 2)


def compactor(config: CompactionConfig, model: ChatModel, **hooks: object) -> Compactor:
    # These tests check AgentScope 2.0.3's numbers: its estimator prices them.
    thresholds = resolve_thresholds(config, model.model_name)
    meter = build_meter("agentscope-2.0.3")
    return Compactor(config, thresholds, model, meter=meter, **hooks)  # type: ignore[arg-type]


def summariser(*texts: str | BaseException) -> ScriptedModel:
    return ScriptedModel([Step(t, purpose="summary") for t in texts])


def chat(turns: int) -> list[Message]:
    """Alternating user / assistant text messages with distinctive contents."""
    return [
        Message.user(f"user turn {i}") if i % 2 == 0 else Message.assistant(f"ai turn {i}")
        for i in range(turns)
    ]


def tool_history() -> list[Message]:
    call = ToolCall("call_1", "lookup_schedule", '{"week": "2026-W45"}')
    return [
        Message.user("book two containers"),
        Message.assistant("which week?"),
        Message.user("next week; look it up"),
        Message.assistant("", [call]),
        Message.tool("call_1", "COSCO 11-05, MAERSK 11-07", tool_name="lookup_schedule"),
        Message.assistant("two sailings"),
    ]


def request_text(request: ChatRequest) -> str:
    assert len(request.messages) == 1
    return request.messages[0].content


# --- triggers ---------------------------------------------------------------------------------


def test_message_trigger_fires_at_the_threshold() -> None:
    history = chat(4)
    with summariser("S") as model:
        result = compactor(COUNT, model).compact_if_needed(history)
    assert result is not None
    assert result.event.trigger == "messages"
    assert len(model.requests) == 1


def test_not_triggered_returns_none_without_a_model_request() -> None:
    history = chat(3)
    with summariser() as model:
        assert compactor(COUNT, model).compact_if_needed(history) is None
    assert model.requests == []


def test_token_trigger_fires_at_the_threshold() -> None:
    history = tool_history()
    total = estimate_tokens(history)
    config = CompactionConfig(
        trigger_messages=0, trigger_tokens=total, keep_messages=2, keep_tokens=0, prune=None
    )
    with summariser("S") as model:
        result = compactor(config, model).compact_if_needed(history)
    assert result is not None
    assert result.event.trigger == "tokens"
    assert result.event.total_tokens == total

    above = CompactionConfig(
        trigger_messages=0, trigger_tokens=total + 1, keep_messages=2, keep_tokens=0, prune=None
    )
    with summariser() as model:
        assert compactor(above, model).compact_if_needed(history) is None
    assert model.requests == []


def test_both_triggers_fire() -> None:
    history = chat(6)
    config = CompactionConfig(
        trigger_messages=6,
        trigger_tokens=estimate_tokens(history),
        keep_messages=2,
        keep_tokens=0,
        prune=None,
    )
    with summariser("S") as model:
        result = compactor(config, model).compact_if_needed(history)
    assert result is not None
    assert result.event.trigger == "messages+tokens"


def test_trigger_fires_but_cutoff_zero_skips_without_a_model_request() -> None:
    history = [
        Message.assistant("", [ToolCall("c1", "f")]),
        Message.tool("c1", "r1"),
        Message.assistant("a"),
        Message.user("u"),
    ]
    config = CompactionConfig(
        trigger_messages=4, keep_messages=3, keep_tokens=0, trigger_tokens=None, prune=None
    )
    # Naive cutoff 1 is a tool result whose call is at index 0: nothing can be cut.
    assert find_safe_cutoff(history, 3).index == 0
    with summariser() as model:
        assert compactor(config, model).compact_if_needed(history) is None


# --- the result -------------------------------------------------------------------------------


def test_output_is_summary_plus_tail() -> None:
    history = tool_history()
    config = CompactionConfig(
        trigger_messages=5, keep_messages=2, keep_tokens=0, trigger_tokens=None, prune=None
    )
    with summariser("the summary text") as model:
        result = compactor(config, model).compact_if_needed(history)
    assert result is not None
    # Naive cutoff 4 is the tool result; the call is at 3.
    cutoff = 3
    assert result.event.cutoff.index == cutoff
    assert result.event.cutoff.naive_index == len(history) - 2
    assert list(result.messages[1:]) == history[cutoff:]
    assert all(a is b for a, b in zip(result.messages[1:], history[cutoff:], strict=True))
    assert result.event.keeping == len(history) - cutoff
    assert result.event.messages_after == len(result.messages) == len(history) - cutoff + 1
    assert result.event.tokens_after == estimate_tokens(result.messages)
    validate_pairing(result.messages)


def test_summary_message_identity() -> None:
    with summariser("## SESSION INTENT\nship it") as model:
        result = compactor(COUNT, model).compact_if_needed(chat(4))
    assert result is not None
    summary = result.messages[0]
    assert summary.role == "user"
    assert summary.name == SUMMARY_NAME == "__compaction_summary__"
    assert summary.is_summary
    assert summary.content.startswith("Here is a summary of the conversation to date:")
    assert summary.content.endswith("## SESSION INTENT\nship it")
    assert result.event.summary == "## SESSION INTENT\nship it"
    assert not result.event.summary_failed
    assert build_summary_message("x") == Message.user(f"{SUMMARY_PREFIX}\n\nx", name=SUMMARY_NAME)


def test_input_is_not_mutated() -> None:
    history = tool_history()
    snapshot = [m.to_record() for m in history]
    with summariser("S") as model:
        compactor(COUNT, model).compact_if_needed(history)
    assert [m.to_record() for m in history] == snapshot


def test_summary_request_is_one_user_message_with_the_rendered_prefix() -> None:
    history = [*tool_history(), Message.user("kept 1"), Message.assistant("kept 2")]
    config = CompactionConfig(
        trigger_messages=8, keep_messages=2, keep_tokens=0, trigger_tokens=None, prune=None
    )
    with summariser("S") as model:
        result = compactor(config, model).compact_if_needed(history)
    assert result is not None
    assert result.event.cutoff.index == 6
    (request,) = model.requests
    assert request.purpose == "summary"
    assert request.tools == ()
    (message,) = request.messages
    assert message.role == "user"
    text = message.content
    assert "Human: book two containers" in text
    assert "AI: which week?" in text
    assert "Human: next week; look it up" in text
    assert '[tool_call: lookup_schedule({"week": "2026-W45"})]' in text
    assert "Tool: [tool_result: lookup_schedule] COSCO 11-05, MAERSK 11-07" in text
    assert "AI: two sailings" in text
    for section in SECTIONS:
        assert section in text
    # The kept tail is not summarised.
    assert "kept 1" not in text
    assert "kept 2" not in text
    # Transcript order follows the history.
    assert text.index("book two containers") < text.index("which week?") < text.index("COSCO")


def test_system_messages_are_not_rendered() -> None:
    history = [Message.system("SECRET RULES"), *chat(5)]
    with summariser("S") as model:
        compactor(COUNT, model).compact_if_needed(history)
    assert "SECRET RULES" not in request_text(model.requests[0])


def test_custom_summary_prompt() -> None:
    config = CompactionConfig(
        trigger_messages=4,
        keep_messages=2,
        keep_tokens=0,
        trigger_tokens=None,
        prune=None,
        summary_prompt="SUMMARY_INPUT:\n{messages}",
    )
    with summariser("S") as model:
        compactor(config, model).compact_if_needed(chat(4))
    assert request_text(model.requests[0]) == "SUMMARY_INPUT:\nHuman: user turn 0\n\nAI: ai turn 1"


def test_second_compaction_merges_the_old_summary() -> None:
    with summariser("ROUND_1 facts") as model:
        first = compactor(COUNT, model).compact_if_needed(chat(4))
    assert first is not None
    history = [*first.messages, Message.assistant("ai turn 4"), Message.user("user turn 5")]
    with summariser("ROUND_2 facts") as model:
        second = compactor(COUNT, model).compact_if_needed(history)
    assert second is not None
    assert "ROUND_1 facts" in request_text(model.requests[0])
    summaries = [m for m in second.messages if m.is_summary]
    assert len(summaries) == 1
    assert second.messages[0].is_summary
    assert "ROUND_2 facts" in second.messages[0].content
    assert "ROUND_1" not in second.messages[0].content
    assert second.messages[0].content.count(SUMMARY_PREFIX) == 1


def test_a_prefix_made_only_of_an_old_summary_is_still_summarised() -> None:
    history = [build_summary_message("OLD FACTS"), Message.user("u"), Message.assistant("a")]
    config = CompactionConfig(
        trigger_messages=3, keep_messages=2, keep_tokens=0, trigger_tokens=None, prune=None
    )
    with summariser("NEW") as model:
        result = compactor(config, model).compact_if_needed(history)
    assert result is not None
    assert "OLD FACTS" in request_text(model.requests[0])
    assert [m.kind for m in result.messages] == ["summary", "user", "assistant"]


def test_echoed_prefix_is_not_nested() -> None:
    with summariser(f"{SUMMARY_PREFIX}\n\n{SUMMARY_PREFIX} facts") as model:
        result = compactor(COUNT, model).compact_if_needed(chat(4))
    assert result is not None
    content = result.messages[0].content
    assert content.count(SUMMARY_PREFIX) == 1
    assert content == f"{SUMMARY_PREFIX}\n\nfacts"


def test_failed_summary_call_still_compacts(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="harness.compaction")
    error = ServerError("upstream exploded", status_code=500)
    with summariser(error) as model:
        result = compactor(COUNT, model).compact_if_needed(chat(5))
    assert result is not None
    summary = result.messages[0]
    assert summary.is_summary
    body = summary.content.removeprefix(SUMMARY_PREFIX).strip()
    assert body.startswith("(Summary unavailable)")
    assert "ServerError" in body
    assert "upstream exploded" in body
    assert result.event.summary_failed
    assert list(result.messages[1:]) == chat(5)[3:]
    assert any("Summarization LLM call failed" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("blank", ["", "   \n\t "])
def test_blank_summary_becomes_unavailable(blank: str) -> None:
    with summariser(blank) as model:
        result = compactor(COUNT, model).compact_if_needed(chat(4))
    assert result is not None
    assert result.event.summary == SUMMARY_UNAVAILABLE == "(Summary unavailable)"
    assert result.event.summary_failed
    assert result.messages[0].content == f"{SUMMARY_PREFIX}\n\n(Summary unavailable)"


def test_a_non_model_error_is_not_swallowed() -> None:
    # Only provider errors degrade the summary; a broken summariser is a bug and surfaces.
    model = FunctionModel(lambda request: ScriptError("boom"))
    with pytest.raises(ScriptError):
        compactor(COUNT, model).compact_if_needed(chat(4))


# --- log lines --------------------------------------------------------------------------------


def test_log_lines(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="harness.compaction")
    history = [Message.user("earlier"), Message.assistant("reply"), *tool_history()]
    config = CompactionConfig(
        trigger_messages=6, keep_messages=2, keep_tokens=0, trigger_tokens=None, prune=None
    )
    n = len(history)
    tokens = sum(estimate_message_tokens(m) for m in history)
    call_index = next(i for i, m in enumerate(history) if m.tool_calls)
    assert history[n - 2].role == "tool"  # the naive cutoff moves back to the call
    keeping = n - call_index
    with summariser("S") as model:
        result = compactor(config, model).compact_if_needed(history)
    assert result is not None
    expected = [
        f"Compaction triggered: total={n} msgs / {tokens} tokens, "
        f"cutoff={call_index}, keeping={keeping} msgs",
        f"Compacted to {keeping + 1} messages before reasoning",
    ]
    lines = [r.getMessage() for r in caplog.records if r.name == "harness.compaction"]
    assert lines == expected
    assert list(result.event.log_lines) == expected
    assert result.event.to_dict()["log_lines"] == expected


# --- flush and offload before the summary (step 5: the engine's, between plan and summary) ----


def hooked_config(flush: bool, offload: bool) -> CompactionConfig:
    return CompactionConfig.count_only(
        5, 2, flush_before_compact=flush, offload_before_compact=offload
    )


def history_with_old_summary() -> list[Message]:
    return [build_summary_message("OLD"), *chat(4)]


class RecordingHistory:
    """A history that notes the prefix records and the compactions it is handed."""

    def __init__(self, messages: list[Message], order: list[str], offload: PrefixHook) -> None:
        self._messages = messages
        self.order = order
        self._offload = offload

    def messages(self) -> list[Message]:
        return list(self._messages)

    def append(self, messages: Sequence[Message]) -> None:
        self._messages.extend(messages)

    def apply_compaction(self, compaction: Compaction) -> None:
        self.order.append("apply")
        self._messages = list(compaction.messages)

    def record_prefix(self, prefix: Sequence[Message]) -> None:
        self._offload(prefix)

    def record_request(self, header: ChatRequest) -> None:
        pass


def run_engine(
    config: CompactionConfig,
    model: ChatModel,
    history: RecordingHistory,
    flush: PrefixHook,
) -> list[CompactionRecord]:
    engine = AgentScopeEngine(compactor(config, model), flush=flush)
    plan = engine.compactor.plan(history.messages())
    return engine.compact(history, plan)


def test_the_plan_is_pure() -> None:
    history = history_with_old_summary()
    with summariser() as model:  # a model request would fail: the script is empty
        plan = compactor(hooked_config(True, True), model).plan(history)
    assert plan is not None
    assert plan.trigger == "messages"
    assert plan.cutoff.index == 3
    assert plan.prefix == tuple(history[:3]) and plan.tail == tuple(history[3:])
    assert history == history_with_old_summary()  # input untouched


def test_flush_and_offload_receive_the_prefix() -> None:
    flushed: list[list[Message]] = []
    offloaded: list[list[Message]] = []
    order: list[str] = []

    def flush(prefix: Sequence[Message]) -> None:
        order.append("flush")
        flushed.append(list(prefix))

    def offload(prefix: Sequence[Message]) -> None:
        order.append("offload")
        offloaded.append(list(prefix))

    def summarise(request: ChatRequest) -> str:
        order.append("summary")
        return "S"

    original = history_with_old_summary()
    history = RecordingHistory(list(original), order, offload)
    events = run_engine(hooked_config(True, True), FunctionModel(summarise), history, flush)
    (event,) = events
    cutoff = event.cutoff.index
    assert cutoff == 3
    assert offloaded == [original[:cutoff]]
    assert flushed == [[m for m in original[:cutoff] if not m.is_summary]]
    assert all(not m.is_summary for m in flushed[0])
    assert order == ["flush", "offload", "summary", "apply"]
    assert history.messages()[1:] == original[cutoff:]


def test_the_compactor_alone_has_no_side_effects() -> None:
    with summariser("S") as model:
        result = compactor(hooked_config(True, True), model).compact_if_needed(
            history_with_old_summary()
        )
    assert result is not None  # flush and offload on, but nothing to call: the engine's step


@pytest.mark.parametrize(("flush_on", "offload_on"), [(False, True), (True, False), (False, False)])
def test_hooks_are_skipped_when_their_flags_are_off(flush_on: bool, offload_on: bool) -> None:
    calls: list[str] = []
    history = RecordingHistory(
        history_with_old_summary(), [], lambda prefix: calls.append("offload")
    )
    with summariser("S") as model:
        events = run_engine(
            hooked_config(flush_on, offload_on),
            model,
            history,
            lambda prefix: calls.append("flush"),
        )
    assert len(events) == 1
    assert calls == [name for name, on in (("flush", flush_on), ("offload", offload_on)) if on]


def test_a_raising_hook_does_not_stop_compaction(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="harness.compaction")

    def broken(prefix: Sequence[Message]) -> None:
        raise OSError("disk full")

    history = RecordingHistory(history_with_old_summary(), [], broken)
    with summariser("S") as model:
        events = run_engine(hooked_config(True, True), model, history, broken)
    assert len(events) == 1
    assert history.messages()[0].content.endswith("S")
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert all("disk full" in r.getMessage() for r in warnings)
    assert "flush" in warnings[0].getMessage()
    assert "offload" in warnings[1].getMessage()


# --- step 2: pruning old tool results ---------------------------------------------------------


def big(tag: str, size: int) -> str:
    """A tool output whose head, middle and tail are told apart."""
    return "H" * 1000 + tag + "M" * (size - 2000 - len(tag)) + "T" * 1000


def tool_round(call_id: str, name: str, text: str) -> list[Message]:
    return [
        Message.assistant("", [ToolCall(call_id, name)]),
        Message.tool(call_id, text, tool_name=name),
    ]


def prune_history(old_count: int) -> tuple[list[Message], dict[str, str]]:
    """Old large results, an excluded one, a small one, then recent large ones (≥ 40K tokens)."""
    texts: dict[str, str] = {}
    messages: list[Message] = [Message.user("investigate")]
    for i in range(old_count):
        texts[f"old{i}"] = big(f"old{i}", 15_000)  # ≈ 6,000 tokens each
        messages += tool_round(f"old{i}", "grep", texts[f"old{i}"])
    texts["file"] = big("file", 15_000)
    messages += tool_round("file", "read_file", texts["file"])
    texts["small"] = "s" * 1_500
    messages += tool_round("small", "grep", texts["small"])
    for i in range(4):
        texts[f"new{i}"] = big(f"new{i}", 30_000)  # ≈ 12,000 tokens each
        messages += tool_round(f"new{i}", "grep", texts[f"new{i}"])
    messages.append(Message.assistant("found it"))
    return messages, texts


def by_id(messages: Sequence[Message]) -> dict[str, Message]:
    return {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}


def protected_ids(messages: Sequence[Message], config: PruneConfig) -> set[str]:
    """Independent reference of the protection rule: newest first, until the budget is reached."""
    protected: set[str] = set()
    used = 0
    for message in reversed(messages):
        if message.role != "tool" or message.metadata.get("tool_name") in config.excluded_tools:
            continue
        if used >= config.protect_tokens:
            break
        used += estimate_message_tokens(message)
        protected.add(message.tool_call_id or "")
    return protected


def test_prune_shrinks_old_results_only() -> None:
    config = PruneConfig()
    history, texts = prune_history(old_count=6)
    protected = protected_ids(history, config)
    assert protected == {"new0", "new1", "new2", "new3"}  # 3 × 12K < 40K, the 4th crosses it

    pruned = prune_tool_results(history, config)

    assert len(pruned) == len(history)
    results = by_id(pruned)
    for i in range(6):
        text = texts[f"old{i}"]
        content = results[f"old{i}"].content
        assert content.startswith(text[:1000])
        assert content.endswith(text[-1000:])
        assert f"...({len(text) - 2000} chars pruned)..." in content
        assert "M" not in content  # the middle is gone
        assert len(content) < 2_100
        assert results[f"old{i}"].metadata == {
            "tool_name": "grep",
            "pruned_chars": len(text) - 2000,
        }
    for key in ("new0", "new1", "new2", "new3", "file", "small"):
        assert results[key].content == texts[key]
    # Non-tool messages are the same objects.
    assert all(p is h for p, h in zip(pruned, history, strict=True) if h.role != "tool")
    validate_pairing(pruned)


def test_prune_below_minimum_tokens_changes_nothing() -> None:
    history, _ = prune_history(old_count=3)  # ≈ 18K tokens of candidates < 20K
    old = [m for m in history if m.tool_call_id and m.tool_call_id.startswith("old")]
    assert estimate_tokens(old) < 20_000
    assert prune_tool_results(history, PruneConfig()) == history


def test_prune_runs_inside_compaction() -> None:
    history, texts = prune_history(old_count=6)
    n = len(history)
    # keep almost everything, so the pruned results stay visible
    config = CompactionConfig.count_only(n, n - 1, prune=PruneConfig())
    with summariser("S") as model:
        result = compactor(config, model).compact_if_needed(history)
    assert result is not None
    results = by_id(result.messages)
    assert "chars pruned" in results["old0"].content
    assert results["new3"].content == texts["new3"]
    # The token figure of the log line is measured after pruning.
    assert result.event.total_tokens < estimate_tokens(history)


def test_prune_is_idempotent() -> None:
    messages: list[Message] = []
    for i in range(80):
        messages += tool_round(f"c{i}", "grep", big(f"c{i}", 15_000))
    config = PruneConfig()
    once = prune_tool_results(messages, config)
    assert once != messages
    twice = prune_tool_results(once, config)
    assert markers(twice) == markers(once)
    assert [m.content for m in twice] == [m.content for m in once]


def markers(messages: Sequence[Message]) -> list[list[str]]:
    return [re.findall(r"\.\.\.\((\d+) chars pruned\)\.\.\.", m.content) for m in messages]


# --- step 1: truncating old tool-call arguments -----------------------------------------------


def truncate_history() -> list[Message]:
    long_value = "x" * 100
    return [
        Message.user("write files"),
        Message.assistant(
            "", [ToolCall("w1", "write_file", json.dumps({"path": "a.txt", "text": long_value}))]
        ),
        Message.tool("w1", "ok"),
        Message.assistant("", [ToolCall("w2", "write_file", "not json " + long_value)]),
        Message.tool("w2", "Error"),
        Message.assistant(
            "", [ToolCall("w3", "write_file", json.dumps({"path": "b.txt", "text": long_value}))]
        ),
        Message.tool("w3", "ok"),
    ]


def test_truncate_tool_arguments() -> None:
    history = truncate_history()
    config = TruncateArgsConfig(trigger_messages=5, keep_messages=2, max_arg_length=50)
    result = truncate_tool_arguments(history, config)
    assert len(result) == len(history)
    first = result[1].tool_calls[0]
    assert first.id == "w1"
    assert first.parsed_arguments() == {
        "path": "a.txt",
        "text": "x" * 20 + "...(argument truncated)",
    }
    # Invalid JSON is left alone.
    assert result[3].tool_calls[0] == history[3].tool_calls[0]
    # The last keep_messages (index 5, 6) are untouched, and so are the results.
    assert result[5] == history[5]
    assert result[5].tool_calls[0].arguments == history[5].tool_calls[0].arguments
    assert [m.content for m in result] == [m.content for m in history]
    validate_pairing(result)


def test_truncate_tool_arguments_below_its_trigger_changes_nothing() -> None:
    history = truncate_history()
    config = TruncateArgsConfig(trigger_messages=50, trigger_tokens=10**6, max_arg_length=50)
    assert truncate_tool_arguments(history, config) == history


def test_truncate_args_runs_inside_compaction_when_enabled() -> None:
    history = truncate_history()
    base = {
        "trigger_messages": 7,
        "keep_messages": 6,
        "keep_tokens": 0,
        "trigger_tokens": None,
        "prune": None,
    }
    on = CompactionConfig(
        **base,
        truncate_args=TruncateArgsConfig(trigger_messages=5, keep_messages=2, max_arg_length=50),
    )
    with summariser("S") as model:
        result = compactor(on, model).compact_if_needed(history)
    assert result is not None
    assert result.messages[1].tool_calls[0].id == "w1"
    assert "argument truncated" in result.messages[1].tool_calls[0].arguments
    off = CompactionConfig(**base)
    with summariser("S") as model:
        result = compactor(off, model).compact_if_needed(history)
    assert result is not None
    assert result.messages[1].tool_calls == history[1].tool_calls


# --- forced compaction ------------------------------------------------------------------------


def test_force_ignores_the_triggers() -> None:
    history = chat(3)
    with summariser("S") as model:
        comp = compactor(COUNT, model)
        assert comp.compact_if_needed(history) is None
        forced = comp.force(history)
    assert forced is not None
    assert forced.event.trigger == "overflow"
    assert list(forced.messages[1:]) == history[1:]


def test_force_returns_none_when_nothing_can_be_cut() -> None:
    with summariser() as model:
        assert compactor(COUNT, model).force(chat(2)) is None


@given(st.text(alphabet=st.sampled_from([" ", "\t", "\n", "\u3000", "\u00a0", "\x1c", "a", "好"])))
def test_a_blank_tool_result_is_what_strip_calls_blank(text: str) -> None:
    # the prune and its forecast skip blank results without copying every result's text
    from harness.compaction.agentscope.prune import _blank

    assert _blank(text) == (not text.strip())


@given(
    st.lists(
        st.tuples(st.integers(0, 90), st.sampled_from(["lookup", "read_file", "memory_search"])),
        max_size=30,
    ),
    st.integers(0, 400),
    st.integers(0, 300),
    st.booleans(),
)
def test_the_forecast_says_exactly_when_the_prune_would_change_the_history(
    results: list[tuple[int, str]], protect: int, minimum: int, pruned_first: bool
) -> None:
    # the engine skips the prune's walk of the whole history when the forecast says no
    from harness.compaction.agentscope.config import PruneConfig
    from harness.compaction.agentscope.prune import PruneForecast, prune_tool_results

    config = PruneConfig(protect_tokens=protect, minimum_tokens=minimum, max_output_chars=40)
    history: list[Message] = []
    for n, (size, tool) in enumerate(results):
        call = ToolCall(f"c{n}", tool, "{}")
        result = Message.tool(f"c{n}", "r" * size if size % 9 else " " * size)
        result.metadata["tool_name"] = tool
        history += [Message.assistant("", [call]), result]
    if pruned_first:
        history = prune_tool_results(history, config)  # some already a head and a tail
    forecast = PruneForecast(config)
    forecast.sync(history)
    changed = prune_tool_results(history, config) != history
    assert forecast.would_prune() == changed


def test_a_skipped_prune_walk_gives_the_same_plan() -> None:
    history = chat(30)
    config = CompactionConfig(trigger_messages=10, keep_messages=4, keep_tokens=0)
    with summariser() as model:
        walked = compactor(config, model).plan(history)
        skipped = compactor(config, model).plan(history, prune_would_change=False)
    assert walked is not None and skipped is not None
    assert skipped.messages == walked.messages and skipped.cutoff == walked.cutoff
