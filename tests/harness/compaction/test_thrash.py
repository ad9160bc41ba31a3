"""Tests of harness.compaction.guards.thrash, the thrash guard: the two skip rules (a kept tail that
still meets the trigger, a compaction that removes too little), the refill bound and its typed
error, the profiles, and the property that a guarded compaction never splits a tool pair."""

from __future__ import annotations

import logging

import pytest
from hypothesis import assume, event, given, note
from hypothesis import strategies as st
from test_properties import check_cutoff, histories

from harness.agent import Agent
from harness.compaction.agentscope import (
    CompactionConfig,
    Compactor,
    ctxlab_profile,
    resolve_thresholds,
)
from harness.compaction.agentscope.engine import AgentScopeEngine
from harness.compaction.factory import make_engine
from harness.compaction.guards.gate import GateConfig
from harness.compaction.guards.thrash import ThrashConfig, ThrashGuard
from harness.errors import CompactionError, CompactionThrashError, ConfigError
from harness.harness_agent import HarnessAgent
from harness.messages import Message, validate_pairing
from harness.testing import FunctionModel

MODEL = "deepseek-chat"  # window 128,000: dynamic keep 8,000 tokens, token trigger 108,000


def summariser() -> FunctionModel:
    return FunctionModel(lambda request: "SUMMARY")


def chat(pairs: int, words: int = 40) -> list[Message]:
    """A chatty session: ``pairs`` user/assistant exchanges of about 80 tokens a message, so
    the dynamic 8,000-token tail holds about 100 messages."""
    text = " ".join(f"word{n}" for n in range(words))
    messages: list[Message] = []
    for n in range(pairs):
        messages += [
            Message.user(f"question {n}: {text}"),
            Message.assistant(f"answer {n}: {text}"),
        ]
    return messages


def compactor(config: CompactionConfig, model: FunctionModel | None = None) -> Compactor:
    model = model or summariser()
    return Compactor(config, resolve_thresholds(config, MODEL), model)


GUARDED = CompactionConfig(thrash=ThrashConfig(), flush_before_compact=False)
FAITHFUL = CompactionConfig(flush_before_compact=False)


# --- rule 1: the kept tail would itself meet the trigger ---------------------------------------


def test_agentscope_defaults_thrash_without_the_guard() -> None:
    # 110 messages ≥ the 50-message trigger, but 8,000 dynamic tokens keep about 100 of them
    history = chat(55)
    compaction = compactor(FAITHFUL).compact_if_needed(history)
    assert compaction is not None
    assert compaction.event.keeping >= 50  # the compacted history still meets the trigger


def test_guard_skips_a_compaction_whose_tail_meets_the_trigger(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = summariser()
    guarded = compactor(GUARDED, model)
    with caplog.at_level(logging.INFO, logger="harness.compaction"):
        assert guarded.compact_if_needed(chat(55)) is None
    assert model.requests == []  # no summary call
    assert guarded.guard is not None
    (skip,) = guarded.guard.skips
    assert skip.reason == "tail-meets-trigger" and skip.trigger == "messages"
    assert skip.kept_messages >= 50
    assert dict(guarded.guard.skipped) == {"tail-meets-trigger": 1}
    lines = [r.getMessage() for r in caplog.records if "thrash guard" in r.getMessage()]
    assert lines == [skip.line]
    assert "would itself meet the trigger (messages" in skip.line


def test_a_token_triggered_compaction_runs_although_its_tail_has_many_messages() -> None:
    # tokens fired and the 8,000-token tail is far below 108,000: the compaction relieves the
    # pressure that called it, even if the tail alone holds more than 50 messages
    history = [Message.user("paste: " + "x" * 400_000), *chat(55)]  # ~123,000 tokens
    guarded = compactor(GUARDED)
    compaction = guarded.compact_if_needed(history)
    assert compaction is not None and compaction.event.trigger == "messages+tokens"
    assert compaction.event.keeping >= 50
    guard = guarded.guard
    assert guard is not None and not guard.skips and guard.allowed == 1


def test_overflow_is_never_skipped() -> None:
    guarded = compactor(GUARDED)
    assert guarded.force(chat(55)) is not None
    assert guarded.guard is not None and not guarded.guard.skips


# --- rule 2: a compaction that removes too little -----------------------------------------------


def test_guard_skips_a_compaction_that_removes_too_little() -> None:
    config = CompactionConfig.count_only(10, 7, thrash=ThrashConfig(min_removed_fraction=0.5))
    history = [Message.user("hi"), Message.assistant("hello"), Message.user("ok")]
    history += chat(4, words=60)[:7]
    guarded = compactor(config)
    assert guarded.compact_if_needed(history) is None
    assert guarded.guard is not None
    (skip,) = guarded.guard.skips
    assert skip.reason == "removes-too-little"
    assert skip.removed_tokens < 0.5 * skip.total_tokens
    # the same compaction runs without the guard
    unguarded = CompactionConfig(**{**config.__dict__, "thrash": None})
    assert compactor(unguarded).compact_if_needed(history) is not None


# --- rule 3: refills in a row stop with a typed error --------------------------------------------


def refilling_agent(thrash: ThrashConfig | None, trigger: int = 4) -> Agent:
    # count mode, keep 1: trigger 4 compacts before every call from the third on, trigger 6
    # before every second
    config = CompactionConfig.count_only(trigger, 1, thrash=thrash)
    model = FunctionModel(lambda r: "SUMMARY" if r.purpose == "summary" else "ok")
    return Agent(model, "system", engine=make_engine(config, model))


def test_refilling_compactions_stop_with_a_thrash_error_after_the_bound() -> None:
    agent = refilling_agent(ThrashConfig(min_removed_fraction=0, max_refills=3))
    compactions = 0
    with pytest.raises(CompactionThrashError, match="refilled to the trigger") as raised:
        for n in range(20):
            compactions += len(agent.call(f"turn {n}").compactions)
    assert isinstance(raised.value, CompactionError)
    # the first compaction and two refills ran; the third refill in a row was stopped
    assert compactions == 3
    assert isinstance(agent.engine, AgentScopeEngine)
    assert agent.engine.compactor.guard is not None
    assert agent.engine.compactor.guard.refills == 3


def test_compactions_further_apart_than_refill_requests_are_no_refill() -> None:
    agent = refilling_agent(ThrashConfig(min_removed_fraction=0, refill_requests=1), trigger=6)
    compactions = sum(len(agent.call(f"turn {n}").compactions) for n in range(20))
    assert compactions == 9  # calls 3, 5, 7, ..., 19: two replies apart
    assert isinstance(agent.engine, AgentScopeEngine)
    assert agent.engine.compactor.guard is not None
    assert agent.engine.compactor.guard.refills == 0


def test_without_the_guard_the_same_session_compacts_forever() -> None:
    agent = refilling_agent(None)
    assert sum(len(agent.call(f"turn {n}").compactions) for n in range(20)) == 18


# --- profiles and config ------------------------------------------------------------------------


def test_profiles() -> None:
    assert CompactionConfig().thrash is None and CompactionConfig().gate is None
    profile = ctxlab_profile()
    assert profile.thrash == ThrashConfig() and profile.refuse_larger_summary
    assert profile.gate == GateConfig(definitions=True, budget_tokens=320, max_family=3)
    assert not CompactionConfig().refuse_larger_summary and not GateConfig().definitions
    assert (
        profile.summary_chunk_tokens == 16_000 and CompactionConfig().summary_chunk_tokens is None
    )
    assert profile.summary_budget == 0.4 and CompactionConfig().summary_budget is None
    assert profile.strip_echo and not CompactionConfig().strip_echo
    assert profile.drop_unsourced and not CompactionConfig().drop_unsourced
    ours = ("thrash", "gate", "refuse_larger_summary", "summary_budget", "summary_chunk_tokens")
    ours += ("strip_echo", "drop_unsourced")
    assert {k: v for k, v in profile.__dict__.items() if k not in ours} == {
        k: v for k, v in CompactionConfig().__dict__.items() if k not in ours
    }


def test_harness_agent_defaults_to_ctxlab_profile(tmp_path: object) -> None:
    agent = HarnessAgent(FunctionModel(lambda r: "ok"), workspace_root=tmp_path)  # type: ignore[arg-type]
    try:
        engine = agent.agent.engine
        assert isinstance(engine, AgentScopeEngine)
        assert engine.compactor.config == ctxlab_profile()
        assert engine.compactor.guard is not None
    finally:
        agent.close()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_removed_fraction": 1.0},
        {"min_removed_fraction": -0.1},
        {"min_removed_fraction": "x"},
        {"refill_requests": 0},
        {"max_refills": 1.5},
        {"max_refills": True},
    ],
)
def test_thrash_config_refuses_bad_values(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match="ThrashConfig"):
        ThrashConfig(**kwargs)  # type: ignore[arg-type]


# --- property: the guard never lets a compaction split a tool pair ------------------------------


@given(histories(), st.data())
def test_guarded_compaction_never_splits_a_tool_pair(
    history: list[Message], data: st.DataObject
) -> None:
    keep = data.draw(st.integers(min_value=1, max_value=max(1, len(history) // 2)), label="keep")
    trigger = data.draw(st.integers(min_value=keep + 1, max_value=max(keep + 1, len(history))))
    keep_tokens = data.draw(st.sampled_from([0, 0, 20, 60, 200]), label="keep_tokens")
    trigger_tokens = data.draw(st.sampled_from([None, 50, 150]), label="trigger_tokens")
    assume(not (keep_tokens and trigger_tokens and keep_tokens >= trigger_tokens))
    config = CompactionConfig.count_only(
        trigger,
        keep,
        keep_tokens=keep_tokens,
        trigger_tokens=trigger_tokens,
        thrash=ThrashConfig(
            min_removed_fraction=data.draw(st.sampled_from([0.0, 0.0, 0.1, 0.3])), max_refills=10**6
        ),
    )
    guarded = Compactor(config, resolve_thresholds(config, "scripted"), summariser())
    result = guarded.compact_if_needed(history)
    skipped = guarded.guard is not None and bool(guarded.guard.skips)
    event("skipped by the guard" if skipped else "ran" if result else "not triggered")
    if result is None:
        return
    cutoff = result.event.cutoff.index
    note(f"cutoff={cutoff} keeping={result.event.keeping}")
    check_cutoff(history, cutoff)
    validate_pairing(list(result.messages))
    limits = guarded.thresholds
    # a compaction the guard let run clears at least one trigger that fired
    fired = result.event.trigger.split("+")
    cleared = ("messages" in fired and result.event.keeping + 1 < limits.trigger_messages) or (
        "tokens" in fired
        and limits.trigger_tokens is not None
        and result.event.total_tokens - guarded.meter.price_all(history[:cutoff])
        < limits.trigger_tokens
    )
    assert cleared


def test_guard_reviews_are_independent_of_the_request_object() -> None:
    # the guard works on the message list alone (no request, no history store)
    guard = ThrashGuard(ThrashConfig(), resolve_thresholds(FAITHFUL, MODEL), lambda m: 10)
    history = chat(55)
    assert guard.review(history, 2, "messages", 1100) is False  # keeps 109 ≥ 50
    assert guard.review(history, 70, "messages", 1100) is True  # keeps 41, removes 700
    assert [s.reason for s in guard.skips] == ["tail-meets-trigger"] and guard.allowed == 1


def test_a_review_of_a_grown_history_prices_only_its_new_messages() -> None:
    # every request of a session at AgentScope's defaults meets the 50-message trigger and the
    # guard skips it: pricing the whole prefix at each review made every turn O(history)
    priced: list[Message] = []

    def price(message: Message) -> int:
        priced.append(message)
        return 10

    guard = ThrashGuard(ThrashConfig(), resolve_thresholds(FAITHFUL, MODEL), price)
    history = chat(500)
    assert guard.review(history, 2, "messages", 10_000) is False
    assert len(priced) == len(history)
    priced.clear()
    grown = [*history, *chat(1)]
    assert guard.review(grown, 4, "messages", 10_020) is False
    assert priced == grown[len(history) :]  # two new messages, nothing else
    assert guard.skips[-1].removed_tokens == 40


@given(
    st.lists(st.integers(0, 40), min_size=1, max_size=12),
    st.lists(st.tuples(st.sampled_from(["grow", "swap", "cut"]), st.integers(0, 60)), max_size=12),
)
def test_the_removed_tokens_always_equal_the_prefix_priced_afresh(
    sizes: list[int], steps: list[tuple[str, int]]
) -> None:
    def price(message: Message) -> int:
        return len(message.content)

    # every review removes too little of 10**6 tokens: each one leaves a record of its plan
    config = ThrashConfig(min_removed_fraction=0.5)
    guard = ThrashGuard(config, resolve_thresholds(FAITHFUL, MODEL), price)
    messages = [Message.user("x" * n) for n in sizes]
    for kind, n in [("grow", 0), *steps]:
        if kind == "grow":
            messages = [*messages, Message.assistant("y" * n)]
        elif kind == "swap":  # a pruned or rewritten message in place: another object
            at = n % len(messages)
            messages = [*messages[:at], Message.user("z" * (n % 7)), *messages[at + 1 :]]
        elif len(messages) > 1:  # a compaction: the front replaced by a summary
            messages = [Message.user("summary"), *messages[1 + n % (len(messages) - 1) :]]
        cutoff = 1 + n % len(messages)
        assert guard.review(messages, cutoff, "messages", 10**6) is False
        assert guard.skips[-1].removed_tokens == sum(price(m) for m in messages[:cutoff])


def test_under_the_engine_the_guard_weighs_the_prefix_from_the_engines_ledger(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the engine keeps a ledger of the history's prices (its reading): the guard reads the
    # prefix from its running sums, so a skipped request walks nothing; the same figure as the
    # guard's own pricing, which the engine path must not need
    model = FunctionModel(lambda request: "SUMMARY", model_name=MODEL)  # dynamic tail 8,000
    config = CompactionConfig(flush_before_compact=False, thrash=ThrashConfig())
    engine = make_engine(config, model)
    assert isinstance(engine, AgentScopeEngine) and engine.compactor.guard is not None
    own = ThrashGuard(ThrashConfig(), engine.compactor.thresholds, engine.meter.price)
    guard = engine.compactor.guard
    monkeypatch.setattr(guard, "_priced", None)  # any use of the guard's own sums fails
    agent = Agent(model, "system", engine=engine)
    text = " ".join(f"word{n}" for n in range(80))  # about 160 tokens: the tail holds ~94
    for n in range(70):
        agent.call(f"question {n}: {text}")
    assert guard.skipped["tail-meets-trigger"] > 0 and guard.allowed == 0
    last = guard.skips[-1]
    assert own.review(agent.context[: last.total_messages], last.cutoff, "messages", 0) is False
    assert own.skips[-1].removed_tokens == last.removed_tokens


# --- the engine's record of its guard ------------------------------------------------------


def test_the_engine_reports_its_guard_as_a_frozen_record() -> None:
    model = FunctionModel(lambda request: "SUMMARY", model_name=MODEL)
    engine = make_engine(GUARDED, model)
    assert make_engine(FAITHFUL, model).thrash_record is None  # no guard, no record
    empty = engine.thrash_record
    assert empty is not None and (empty.skipped, empty.allowed, empty.last_skip) == ({}, 0, None)
    assert engine.compactor.compact_if_needed(chat(55)) is None  # skipped: the tail meets it
    record = engine.thrash_record
    assert record is not None and record.skipped == {"tail-meets-trigger": 1}
    assert record.last_skip is not None and record.last_skip.reason == "tail-meets-trigger"
    assert (record.allowed, record.refills) == (0, 0)
    assert empty.skipped == {}  # a record is a snapshot: the later skip did not reach it
