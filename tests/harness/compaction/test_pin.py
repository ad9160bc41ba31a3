"""Tests of harness.compaction.guards.pin: the user's own turns kept verbatim, what a later turn
replaced left out, cheapest first within the budget, carried across compactions; its wiring
into the compactor and the event. Properties: the budget is never exceeded, every pinned item is
a user turn verbatim, the section reads back as it was written."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.compaction.agentscope import CompactionConfig, Compactor, resolve_thresholds
from harness.compaction.agentscope.summary import build_summary_message
from harness.compaction.guards.pin import (
    PIN_HEADING,
    PinConfig,
    Pinned,
    apply_pin,
    pin_budget,
    pin_section,
    pinned_items,
    rank_pins,
)
from harness.errors import ConfigError
from harness.messages import Message
from harness.meter import build_meter
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.eventlog.events import thaw
from harness.testing import FunctionModel

METER = build_meter("agentscope-2.0.3")
EMPTY = METER.price(Message.user(""))


def price(text: str) -> int:
    return max(METER.price(Message.user(text)) - EMPTY, 0)


def chat(*texts: str) -> list[Message]:
    """User turns, each answered with the same filler."""
    return [m for t in texts for m in (Message.user(t), Message.assistant("Noted."))]


FILLER = [f"Next: is checklist line {n} done today?" for n in range(1, 5)]


def test_a_later_turn_on_the_same_subject_replaces_the_older_one() -> None:
    span = chat(
        "The handover meeting is in room Alder.",
        *FILLER[:2],
        "Change of plan: the handover meeting moves to room Maple.",
        "The password is juniper.",
    )
    pins = {p.text: p.superseded for p in rank_pins(span, [], 0.5)}
    assert pins["The handover meeting is in room Alder."] is True
    assert pins["Change of plan: the handover meeting moves to room Maple."] is False
    assert pins["The password is juniper."] is False


def test_a_turn_of_the_kept_tail_supersedes_one_of_the_span() -> None:
    span = chat("The handover meeting is in room Alder.", *FILLER)
    tail = chat("Change of plan: the handover meeting moves to room Maple.")
    result = apply_pin(PinConfig(), "", span, tail, 500, price)
    assert not any("Alder" in item for item in result.pinned)
    assert result.superseded >= 1


def test_unrelated_turns_are_not_superseded() -> None:
    span = chat("The password is juniper.", "Our contact at the dock is Tobias Lindqvist.", *FILLER)
    pins = {p.text: p.superseded for p in rank_pins(span, [], 0.5)}
    assert pins["The password is juniper."] is False
    assert pins["Our contact at the dock is Tobias Lindqvist."] is False


def test_the_same_turn_said_twice_is_pinned_once() -> None:
    span = chat("Keep the report in Parquet.", "Keep the report in Parquet.")
    result = apply_pin(PinConfig(), "", span, [], 500, price)
    assert result.pinned == ("Keep the report in Parquet.",)


def test_a_tight_budget_keeps_the_turn_with_more_content_words_per_token() -> None:
    short = "Password: juniper."
    long = "Our contact at the warehouse is Tobias Lindqvist; call her for anything at the dock."
    span = chat(long, short)
    budget = price("\n\n" + pin_section([Pinned(short, 1)]))
    result = apply_pin(PinConfig(), "", span, [], budget, price)
    assert result.pinned == (short,)


def test_a_turn_of_only_the_conversations_common_words_is_not_pinned() -> None:
    span = chat(
        "ok thanks", "ok thanks then", "ok thanks again", "ok thanks, the password is juniper"
    )
    pins = {p.text: p.words for p in rank_pins(span, [], 0.9)}
    assert pins["ok thanks"] == 0
    result = apply_pin(PinConfig(overlap=0.9), "", span, [], 500, price)
    assert "ok thanks" not in result.pinned
    assert "ok thanks, the password is juniper" in result.pinned


def test_summaries_and_assistants_are_never_pinned_but_earlier_pins_are_carried() -> None:
    earlier = apply_pin(PinConfig(), "(summary)", chat("The password is juniper."), [], 500, price)
    span = [build_summary_message(earlier.text), Message.assistant("Pick Parquet, I'd say.")]
    result = apply_pin(PinConfig(), "", [*span, *chat("Use the east dock.")], [], 500, price)
    assert result.pinned == ("The password is juniper.", "Use the east dock.")
    assert "(summary)" not in result.text.split(PIN_HEADING, 1)[1]


def test_a_turn_longer_than_the_item_cap_is_left_out() -> None:
    span = chat("word " * 300, "The password is juniper.")
    result = apply_pin(PinConfig(max_item_tokens=50), "", span, [], 10_000, price)
    assert result.pinned == ("The password is juniper.",)


def test_a_long_turn_gives_its_sentences_and_a_fact_said_in_passing_is_kept() -> None:
    chatter = " ".join(f"We talked about the weather on day {n} at length." for n in range(20))
    long = f"{chatter} By the way, the gate code is 4471! {chatter}"
    assert price(long) > 120
    result = apply_pin(PinConfig(), "", chat(long, *FILLER), [], 200, price)
    assert "By the way, the gate code is 4471!" in result.pinned
    assert long not in result.pinned
    assert all(item in long or item in FILLER for item in result.pinned)  # verbatim


def test_the_budget_is_a_share_of_the_room() -> None:
    assert pin_budget(PinConfig(share=0.2), 1_000, 300) == 140
    assert pin_budget(PinConfig(), None, 300) == 0
    assert pin_budget(PinConfig(), 300, 300) == 0


@pytest.mark.parametrize(
    "changes", [{"share": 0}, {"share": 1.5}, {"overlap": True}, {"max_item_tokens": 0}]
)
def test_bad_settings_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        PinConfig(**changes)  # type: ignore[arg-type]


TEXTS = st.lists(
    st.text(st.sampled_from("ab cd\n-#:密码夜莺 "), min_size=1, max_size=40).filter(str.strip),
    min_size=1,
    max_size=8,
)


@settings(max_examples=80, deadline=None)
@given(texts=TEXTS, budget=st.integers(0, 200))
def test_the_budget_is_never_exceeded_and_items_are_verbatim(texts: list[str], budget: int) -> None:
    span = chat(*texts)
    result = apply_pin(PinConfig(max_item_tokens=1_000), "s", span, [], budget, price)
    assert result.tokens <= budget
    assert result.text.startswith("s")
    assert set(result.pinned) <= set(texts)
    assert pinned_items(result.text) == list(result.pinned)


def test_the_compactor_appends_the_pin_before_the_gate_and_records_it() -> None:
    config = CompactionConfig.count_only(6, 2, pin=PinConfig(share=0.5), trigger_tokens=2_000)
    summary = FunctionModel(lambda _: "(placeholder)", model_name="scripted")
    compactor = Compactor(config, resolve_thresholds(config, "scripted"), summary, meter=METER)
    history = chat("The password is juniper.", "Use the east dock.", "Next?", "Thanks.")
    compaction = compactor.compact_if_needed(history)
    assert compaction is not None
    text = compaction.messages[0].content
    assert "- The password is juniper." in text
    assert compaction.event.pin is not None
    assert compaction.event.to_dict()["pin"] == compaction.event.pin
    assert "The password is juniper." in compaction.event.pin["pinned"]  # type: ignore[operator]


def test_the_pin_is_off_by_default() -> None:
    assert CompactionConfig().pin is None and CompactionConfig().recall is None


def test_the_event_log_records_what_the_pin_kept(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "s.jsonl")
    history = EventLogHistory(log)
    history.append(chat("The password is juniper.", "Use the east dock.", "Next?", "Thanks."))
    config = CompactionConfig.count_only(6, 2, pin=PinConfig(share=0.5), trigger_tokens=2_000)
    summary = FunctionModel(lambda _: "(placeholder)", model_name="scripted")
    compactor = Compactor(config, resolve_thresholds(config, "scripted"), summary, meter=METER)
    compaction = compactor.compact_if_needed(history.messages())
    assert compaction is not None
    history.apply_compaction(compaction)
    reopened = EventLog.open(tmp_path / "s.jsonl")
    data = thaw(next(e for e in reopened.events if e.type == "compaction/summary").data)
    assert "The password is juniper." in data["pin"]["pinned"]


def test_with_a_summary_budget_the_pin_stays_within_the_room_the_text_left() -> None:
    turns = [f"Remember item {n}: the crate {n} goes to bay {n}." for n in range(30)]
    config = CompactionConfig.count_only(
        40, 2, pin=PinConfig(share=1.0), trigger_tokens=600, summary_budget=0.2
    )
    summary = FunctionModel(lambda _: "(placeholder)", model_name="scripted")
    compactor = Compactor(config, resolve_thresholds(config, "scripted"), summary, meter=METER)
    compaction = compactor.compact_if_needed(chat(*turns))
    assert compaction is not None and compactor.budget is not None
    assert compaction.event.pin is not None and compaction.event.pin["pinned"]
    assert METER.price(compaction.messages[0]) <= compactor.budget
