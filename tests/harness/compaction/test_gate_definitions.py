"""The gate's definitions (ctxlab's profile only): facts no identifier regex sees — ``暗号：夜莺``,
``the password is falcon``, a name, a reason, a rule — are kept verbatim; the plain gate's output
is unchanged; and ctxlab's size check refuses a summary that is not smaller than its span."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.agent import Agent
from harness.compaction.agentscope import CompactionConfig, ctxlab_profile
from harness.compaction.factory import make_engine
from harness.compaction.guards import gate_definitions
from harness.compaction.guards.gate import GATE_HEADING, GateConfig, apply_gate
from harness.compaction.guards.gate_definitions import Speaker, extract_definitions
from harness.messages import Message
from harness.meter import build_meter
from harness.model import ChatRequest
from harness.testing import FunctionModel

METER = build_meter("agentscope-2.0.3")
ON = GateConfig(definitions=True, budget_tokens=320)


def _texts(*texts: str) -> list[str]:
    return [d.text for d in extract_definitions(texts, GATE_HEADING)]


def test_definitions_names_reasons_and_rules_are_found_verbatim() -> None:
    assert _texts("先对一下暗号：夜莺。") == ["夜莺"]
    assert "falcon" in _texts("Before I forget: the password is falcon.")
    assert _texts("仓库那边的对接人是林晓雯，码头上的事直接找她。") == ["林晓雯"]
    assert _texts("定了：用 PostgreSQL，因为审计要求行级锁。") == [
        "用 PostgreSQL",
        "审计要求行级锁",
    ]
    assert "never touch prod" in _texts("One rule for the whole job: never touch prod.")
    assert "绝对不要动生产库" in _texts("整件事有一条铁律：绝对不要动生产库。")


def test_questions_and_values_with_digits_are_left_to_others() -> None:
    assert _texts("What is the risk if the paperwork slips?") == []
    assert _texts("订舱号是 SO-2026-0417。") == []  # the identifier patterns find it whole


def test_a_label_that_introduces_something_is_no_value() -> None:
    # the framing of every summary message the next compaction reads: it was kept as a value
    assert _texts("Here is a summary of the conversation to date:") == []
    assert _texts("进度如下：") == [] and _texts("The plan is: ship it.") == ["ship it"]


def test_the_gate_keeps_the_articles_code_word_only_with_definitions_on() -> None:
    span = [Message.user("记住暗号：夜莺。"), Message.assistant("收到。")]
    plain = apply_gate(GateConfig(), "收到", span, METER)
    assert plain.text == "收到" and plain.added == ()  # the plain gate is frozen (cassettes)
    gated = apply_gate(ON, "收到", span, METER)
    assert gated.added == ("夜莺",) and gated.text.endswith("- 夜莺")


def test_an_earlier_sections_items_are_kept_by_the_next_compaction() -> None:
    first = apply_gate(ON, "收到", [Message.user("暗号：夜莺。")], METER)
    summary = Message.user(first.text)
    second = apply_gate(ON, "新的摘要", [summary, Message.user("好的。")], METER)
    assert "夜莺" in second.added


def test_boilerplate_said_in_many_messages_is_left_out() -> None:
    span = [Message.assistant("一般的顺序是先单证。") for _ in range(6)]
    span.append(Message.user("暗号：夜莺。"))
    assert apply_gate(ON, "摘要", span, METER).added == ("夜莺",)


def _agent(config: CompactionConfig, summary: str) -> tuple[Agent, FunctionModel]:
    def reply(request: ChatRequest) -> str:
        return summary if request.purpose == "summary" else "好的"

    model = FunctionModel(reply, model_name="deepseek-chat")
    return Agent(model, "助手", engine=make_engine(config, model)), model


@pytest.mark.parametrize("refuse", [True, False])
def test_ctxlab_refuses_a_summary_not_smaller_than_its_span(
    refuse: bool, caplog: pytest.LogCaptureFixture
) -> None:
    config = CompactionConfig.count_only(4, 1, refuse_larger_summary=refuse)
    agent, model = _agent(config, "很长的摘要。" * 200)
    with caplog.at_level(logging.WARNING, logger="harness.compaction"):
        for n in range(4):
            agent.call(f"第 {n} 句")
    summaries = sum(r.purpose == "summary" for r in model.requests)
    assert summaries >= 1
    compacted = any(m.is_summary for m in agent.context)
    assert compacted is not refuse
    assert ("Compaction refused: the summary" in caplog.text) is refuse


def test_a_smaller_summary_is_accepted_by_ctxlabs_profile() -> None:
    profile = replace(ctxlab_profile(), trigger_messages=4, keep_messages=1, keep_tokens=0)
    profile = replace(profile, trigger_tokens=None, prune=None, thrash=None)
    agent, _ = _agent(profile, "短")
    for n in range(4):
        agent.call(f"第 {n} 句：这是一句足够长的话，让被压缩的部分比摘要大。")
    assert any(m.is_summary for m in agent.context)


SAID = [
    "先对一下暗号：夜莺。",
    "Before I forget: the password is falcon.",
    "定了：用 PostgreSQL，因为审计要求行级锁。",
    "One rule for the whole job: never touch prod.",
    "What is the risk?",
    f"{GATE_HEADING}\n- 夜莺\n- never touch prod",
]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([*SAID, "x" * 9000 + ": the code is heron."]),
                  st.sampled_from(["user", "assistant"])),
        max_size=6,
    )
)  # fmt: skip
def test_remembered_phrases_give_what_a_fresh_read_gives(
    said: list[tuple[str, Speaker]],
) -> None:
    """The phrases of a text are remembered (the same turns are read by every compaction of
    every condition): the definitions, counts and tiers are those of reading every text afresh,
    however often the same texts come again, and the answers kept cannot be changed."""
    remembered = gate_definitions.spoken_definitions(said, GATE_HEADING)
    assert gate_definitions.spoken_definitions(said, GATE_HEADING) == remembered
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gate_definitions, "_phrases", gate_definitions._read_phrases)
        assert gate_definitions.spoken_definitions(said, GATE_HEADING) == remembered
    phrases, ruled = gate_definitions._phrases(SAID[2])
    assert isinstance(phrases, tuple) and isinstance(ruled, frozenset)
