"""Tests of harness.compaction.guards.gate, the identifier-survival gate: what it extracts
(Chinese and English), what it appends and in which format, its budget, and its wiring into both
engines and the event log. Properties: it never removes text, never exceeds its budget, and adds
nothing when every identifier survived."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.compaction.agentscope import CompactionConfig, Compactor, resolve_thresholds
from harness.compaction.dsh import DshConfig, DshEngine, frame_checkpoint
from harness.compaction.guards.gate import (
    GATE_HEADING,
    GATE_NOTE,
    GateConfig,
    apply_gate,
    extract_identifiers,
    span_texts,
    survives,
)
from harness.errors import ConfigError
from harness.messages import Message, ToolCall
from harness.meter import build_meter
from harness.model import ChatRequest, ChatResponse, Usage
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.eventlog.events import thaw
from harness.testing import FunctionModel, ScriptedModel, Step

METER = build_meter("ctxlab-anchored")

# E4's planted facts, in E4's own words (experiments/e4/): a code word in Chinese quotes, an
# order id, an amount, a path.
E4_SPAN = [
    Message.user("这票货的暗号定为“蓝鲸”，请记住。只回复“收到”。"),
    Message.assistant("收到"),
    Message.user("订舱单号是 SO-2026-0417，货值 38650 美元。请核对箱数合计。"),
    Message.assistant("好的，已记录。"),
    Message.user("舱单文件放在 /data/exports/hamburg/manifest-1104.csv，请确认路径。"),
    Message.assistant("路径已确认。"),
]
# What the recorded AgentScope summary of E4 did: kept the code word and the path, rewrote
# 38650 as "$38,650" and dropped the order id.
E4_SUMMARY = (
    '## SUMMARY\n- The cargo is labeled as "蓝鲸" and has a value of $38,650.\n'
    "- The manifest file is located at `/data/exports/hamburg/manifest-1104.csv`."
)


def words(span: list[Message]) -> list[str]:
    return [i.text for i in extract_identifiers(span_texts(span))]


# --- extraction ---------------------------------------------------------------------------------


def test_extracts_e4_facts_from_chinese_text() -> None:
    assert words(E4_SPAN) == [
        "蓝鲸",
        "收到",
        "SO-2026-0417",
        "38650",
        "/data/exports/hamburg/manifest-1104.csv",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see https://example.com/a?b=1, then", ["https://example.com/a?b=1"]),
        ("编辑 src/app/main.py 和 ~/notes", ["src/app/main.py", "~/notes"]),
        ("配置见 config.yaml。", ["config.yaml"]),
        ("代号「青松」和『白桦』", ["青松", "白桦"]),
        ("run `make test` now", ["make test"]),
        ("order ORD-7781A and v2.5.1 but not e.g. or and/or", ["ORD-7781A", "v2.5.1"]),
        ("金额 1,280,000 元，12 箱，体积 1.2 m³，日期 2026-11-05", ["1,280,000", "2026-11-05"]),
        ("USD 2650/柜 at 11:30", ["2650", "11:30"]),
        ('he said "blue whale" twice', ["blue whale"]),
    ],
)
def test_extraction_cases(text: str, expected: list[str]) -> None:
    assert words([Message.user(text)]) == expected


def test_json_keys_and_tool_quotes_are_not_code_words() -> None:
    call = ToolCall("c1", "lookup", json.dumps({"origin": "CNSHA", "week": "2026-W45"}))
    span = [
        Message.assistant("", [call]),
        Message.tool("c1", '{"route": "CNSHA-DEHAM", "rate": 2650}', tool_name="lookup"),
    ]
    assert words(span) == ["2026-W45", "2650"]


def test_system_messages_are_not_read() -> None:
    assert words([Message.system("path /etc/secret/x.conf"), Message.user("ok")]) == []


# --- the gate -----------------------------------------------------------------------------------


def test_e4_scenario_appends_the_dropped_order_id_and_amount() -> None:
    result = apply_gate(GateConfig(), E4_SUMMARY, E4_SPAN, METER)
    assert result.added == ("“收到”", "SO-2026-0417", "38650")
    assert result.text == (
        E4_SUMMARY + f"\n\n{GATE_HEADING}\n{GATE_NOTE}\n- “收到”\n- SO-2026-0417\n- 38650"
    )
    record = result.to_record()
    assert record["found"] == 5 and record["missing"] == 3 and record["left_out"] == 0
    assert record["meter"] == "ctxlab-anchored"


def test_output_format_is_frozen() -> None:
    # Recorded cassettes carry gated summaries: this exact text must not change.
    result = apply_gate(GateConfig(), "S", [Message.user("订单 A-1001，路径 /a/b/c.txt")], METER)
    assert result.text == (
        "S\n\n## Exact values\n"
        "Verbatim from the compacted messages; the summary above does not contain them.\n"
        "- A-1001\n- /a/b/c.txt"
    )


def test_nothing_added_when_everything_survived() -> None:
    summary = (
        "Order SO-2026-0417, 38650 USD, code 蓝鲸 收到, /data/exports/hamburg/manifest-1104.csv"
    )
    result = apply_gate(GateConfig(), summary, E4_SPAN, METER)
    assert result.text == summary and result.added == () and result.tokens == 0


def test_a_number_inside_a_longer_one_does_not_survive() -> None:
    result = apply_gate(GateConfig(), "weights 1830 kg", [Message.user("毛重 183 kg")], METER)
    assert result.added == ("183",)


def test_rows_of_a_table_are_left_out() -> None:
    rows = "\n".join(f"CTN-{1000 + i} | {180 + i} kg" for i in range(1, 41))
    span = [Message.user("订舱单号 SO-2026-0417\n" + rows)]
    result = apply_gate(GateConfig(), "summary", span, METER)
    assert result.added == ("SO-2026-0417",)
    assert result.skipped == 80


def test_rare_shapes_win_a_tight_budget() -> None:
    text = "ids A-101 A-102 A-103 A-104 and the order SO-2026-0417"
    price_one = apply_gate(GateConfig(), "s", [Message.user("SO-2026-0417")], METER).tokens
    result = apply_gate(GateConfig(budget_tokens=price_one), "s", [Message.user(text)], METER)
    assert result.added == ("SO-2026-0417",)
    assert result.to_record()["left_out"] == 4


def test_too_small_a_budget_adds_nothing() -> None:
    result = apply_gate(GateConfig(budget_tokens=5), "s", E4_SPAN, METER)
    assert result.text == "s" and result.added == ()


@pytest.mark.parametrize("field", ["budget_tokens", "max_item_chars", "max_family"])
@pytest.mark.parametrize("value", [0, -1, 1.5, True])
def test_config_refuses_bad_values(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=field):
        GateConfig(**{field: value})  # type: ignore[arg-type]


# --- properties ---------------------------------------------------------------------------------

PIECES = st.sampled_from(
    [
        "SO-2026-0417",
        "38650",
        "$38,650",
        "/data/x/y.csv",
        "“蓝鲸”",
        "「青松」",
        "`ls -la`",
        "https://a.example/p?q=1",
        "订舱",
        "货值",
        " ",
        "\n",
        "，",
        "A7",
        "v1.2",
        "2026-11-05",
        "and/or",
        "x",
    ]
)
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=30).map("".join)
SPAN = st.lists(
    st.tuples(st.sampled_from(["user", "assistant", "tool"]), TEXT), min_size=1, max_size=6
)


def build_span(pairs: list[tuple[str, str]]) -> list[Message]:
    span = []
    for n, (role, text) in enumerate(pairs):
        if role == "tool":
            span.append(Message.assistant("", [ToolCall(f"c{n}", "t", json.dumps({"a": text}))]))
            span.append(Message.tool(f"c{n}", text, tool_name="t"))
        else:
            span.append(Message(role=role, content=text))  # type: ignore[arg-type]
    return span


@pytest.mark.quick_examples(50)  # costly examples: [full] under -m slow
@settings(max_examples=150, deadline=None)
@given(summary=TEXT, pairs=SPAN, budget=st.integers(min_value=1, max_value=120))
def test_gate_never_removes_text_and_keeps_its_budget(
    summary: str, pairs: list[tuple[str, str]], budget: int
) -> None:
    span = build_span(pairs)
    for meter in (METER, build_meter("agentscope-2.0.3"), build_meter("dsh")):
        result = apply_gate(GateConfig(budget_tokens=budget), summary, span, meter)
        assert result.text.startswith(summary)
        added = result.text[len(summary) :]
        assert result.tokens <= budget
        empty = meter.price(Message.user(""))
        assert meter.price(Message.user(added)) - empty <= budget
        assert bool(added) == bool(result.added)
        assert apply_gate(GateConfig(budget_tokens=budget), summary, span, meter) == result


@pytest.mark.quick_examples(50)  # costly examples: [full] under -m slow
@settings(max_examples=150, deadline=None)
@given(extra=TEXT, pairs=SPAN)
def test_gate_adds_nothing_when_every_identifier_survived(
    extra: str, pairs: list[tuple[str, str]]
) -> None:
    span = build_span(pairs)
    everything = "\n".join(text for text, _ in span_texts(span))
    for summary in (everything + "\n" + extra, extra + "\n" + everything):
        result = apply_gate(GateConfig(), summary, span, METER)
        assert result.added == () and result.text == summary


def test_a_url_glued_to_a_word_is_no_identifier_the_verbatim_summary_lacks() -> None:
    """Hypothesis found it: ``_0https://…`` gave the URL as an identifier that the verbatim
    span, as a summary, did not hold (survival wants no letter or digit before it)."""
    span = build_span([("user", "_0https://a.example/p?q=1")])
    everything = "\n".join(text for text, _ in span_texts(span))
    result = apply_gate(GateConfig(), everything + "\n", span, METER)
    assert result.added == () and result.text == everything + "\n"


@pytest.mark.quick_examples(35)  # costly examples: [full] under -m slow
@settings(max_examples=100, deadline=None)
@given(summary=TEXT, pairs=SPAN)
def test_gate_adds_only_what_the_summary_lacked(summary: str, pairs: list[tuple[str, str]]) -> None:
    span = build_span(pairs)
    result = apply_gate(GateConfig(budget_tokens=10_000), summary, span, METER)
    found = {i.shown: i for i in extract_identifiers(span_texts(span))}
    for shown in result.added:
        assert not survives(found[shown], summary)
    gated_again = apply_gate(GateConfig(budget_tokens=10_000), result.text, span, METER)
    assert gated_again.added == ()  # the gated text holds every eligible identifier


# --- wiring: AgentScope engine and the event log ------------------------------------------------

GATED = CompactionConfig.count_only(4, 1, gate=GateConfig())


def agentscope_compaction(config: CompactionConfig, summary: str = E4_SUMMARY):  # type: ignore[no-untyped-def]
    model = ScriptedModel([Step(summary, purpose="summary")])
    compactor = Compactor(config, resolve_thresholds(config, "deepseek-chat"), model)
    compaction = compactor.compact_if_needed([*E4_SPAN, Message.user("下一步？")])
    assert compaction is not None
    return compaction


def test_agentscope_summary_message_carries_the_section_and_the_event_the_record() -> None:
    compaction = agentscope_compaction(GATED)
    event = compaction.event
    assert event.summary.startswith(E4_SUMMARY) and "- SO-2026-0417" in event.summary
    assert compaction.messages[0].content.endswith("- SO-2026-0417\n- 38650")
    assert event.to_dict()["gate"] == event.gate
    assert event.gate is not None and event.gate["added"] == ["“收到”", "SO-2026-0417", "38650"]


def test_gate_off_is_the_seed_behaviour() -> None:
    config = CompactionConfig.count_only(4, 1)
    assert config.gate is None and CompactionConfig().gate is None and DshConfig().gate is None
    event = agentscope_compaction(config).event
    assert event.summary == E4_SUMMARY and event.gate is None
    assert "gate" not in event.to_dict()


def test_event_log_records_what_the_gate_added(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "s.jsonl")
    history = EventLogHistory(log)
    history.append([*E4_SPAN, Message.user("下一步？")])
    model = ScriptedModel([Step(E4_SUMMARY, purpose="summary")])
    compactor = Compactor(GATED, resolve_thresholds(GATED, "deepseek-chat"), model)
    compaction = compactor.compact_if_needed(history.messages())
    assert compaction is not None
    history.apply_compaction(compaction)
    reopened = EventLog.open(tmp_path / "s.jsonl")
    data = thaw(next(e for e in reopened.events if e.type == "compaction/summary").data)
    assert data["gate"]["added"] == ["“收到”", "SO-2026-0417", "38650"]
    assert data["summary"].endswith("- 38650")


# --- wiring: the DSH engine ---------------------------------------------------------------------

HEADER = ChatRequest(messages=(Message.system("你是货代业务助手。"),))


PACKING_LIST = Message.user(
    "装箱明细：\n"
    + "\n".join(
        f"{i:02d} | CTN-{1000 + i} | {12 + i % 5} 箱 | 毛重 {180 + i * 3} kg" for i in range(40)
    )
)
DSH_SPAN = [*E4_SPAN, PACKING_LIST, Message.assistant("合计已核对。")]


def dsh_log(tmp_path: Path) -> EventLog:
    log = EventLog(tmp_path / "d.jsonl")
    for message in [*DSH_SPAN, Message.user("下一步？")]:
        log.append_message(message)
    return log


def dsh_model(text: str) -> FunctionModel:
    return FunctionModel(
        lambda request: ChatResponse(
            Message.assistant(text),
            usage=Usage(prompt_tokens=10, completion_tokens=5),
            model="m",
        )
    )


def test_dsh_checkpoint_carries_the_section_and_the_event_the_record(tmp_path: Path) -> None:
    log = dsh_log(tmp_path)
    engine = DshEngine(log, dsh_model(E4_SUMMARY), DshConfig(gate=GateConfig()))
    result = engine.compact_now(HEADER)
    assert result is not None
    data = thaw(log.events[result.summary_seq].data)
    assert data["gate"]["added"] == ["“收到”", "SO-2026-0417", "38650"]
    assert data["raw_output"] == E4_SUMMARY  # the model's own words stay on the log
    checkpoint = log.events[result.checkpoint_seq].message
    assert checkpoint is not None and "- SO-2026-0417\n- 38650\n</compacted-summary>" in (
        checkpoint.content
    )


def test_dsh_gate_keeps_the_checkpoint_smaller_than_the_span(tmp_path: Path) -> None:
    log = dsh_log(tmp_path)
    shadowed = sum(METER.price(m) for m in DSH_SPAN)
    # a summary that leaves almost no room below the span's price
    filler = "x" * int(shadowed * 3.5)
    while METER.price(frame_checkpoint(filler)) > shadowed - 30:
        filler = filler[:-10]
    engine = DshEngine(log, dsh_model(filler), DshConfig(gate=GateConfig()))
    result = engine.compact_now(HEADER)
    assert result is not None
    data = thaw(log.events[result.summary_seq].data)
    checkpoint = log.events[result.checkpoint_seq].message
    assert checkpoint is not None
    assert METER.price(checkpoint) < data["shadowed_token_count"]
    assert data["gate"]["tokens"] <= data["gate"]["budget_tokens"] < 200


def test_dsh_gate_off_records_nothing(tmp_path: Path) -> None:
    log = dsh_log(tmp_path)
    result = DshEngine(log, dsh_model(E4_SUMMARY), DshConfig()).compact_now(HEADER)
    assert result is not None
    data = thaw(log.events[result.summary_seq].data)
    assert "gate" not in data and data["summary"] == E4_SUMMARY


# --- end to end: ctxlab's profile in a HarnessAgent on the event log ----------------------------


def test_harness_agent_gates_its_summaries_and_the_log_says_what_was_added(tmp_path: Path) -> None:
    from dataclasses import replace

    from harness.compaction.agentscope import ctxlab_profile
    from harness.harness_agent import HarnessAgent

    requests: list[ChatRequest] = []

    def reply(request: ChatRequest) -> str:
        requests.append(request)
        return "## SUMMARY\n客户在查订单。" if request.purpose == "summary" else "好的"

    # The spans here are smaller than any summary: the profile's size check (tested in
    # test_gate_definitions.py) would refuse every compaction, so it is off for this test.
    profile = replace(
        ctxlab_profile(),
        trigger_messages=4,
        keep_messages=1,
        keep_tokens=0,
        refuse_larger_summary=False,
    )
    agent = HarnessAgent(
        FunctionModel(reply),
        workspace_root=tmp_path,
        compaction=profile,
        store="eventlog",
        disable_memory_hooks=True,
        disable_memory_tools=True,
    )
    try:
        for text in ("订舱单号是 SO-2026-0417。", "货值 38650 美元。", "还要什么单证？"):
            agent.call(text)
    finally:
        agent.close()
    log = EventLog.open(tmp_path / "default" / "events" / "default.jsonl")
    (summary,) = [thaw(e.data) for e in log.events if e.type == "compaction/summary"]
    assert summary["gate"]["added"] == ["SO-2026-0417", "38650"]
    last = [r for r in requests if r.purpose != "summary"][-1]
    (gated,) = [m for m in last.messages if m.is_summary]  # the gated summary reached the model
    assert gated.content.endswith("## Exact values\n" + GATE_NOTE + "\n- SO-2026-0417\n- 38650")
