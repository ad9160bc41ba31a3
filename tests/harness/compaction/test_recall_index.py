"""Tests of harness.compaction.guards.recall_index: the recall's per-request work does not grow
with the session (each original derived once, each reference text priced once), and the index
answers exactly what ``shadowed()`` answers from scratch."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import Agent, make_engine, text_search
from harness.compaction.agentscope import CompactionConfig
from harness.compaction.agentscope.summary import build_summary_message
from harness.compaction.guards.recall import RECALL_NAME, RecallConfig, shadowed
from harness.compaction.guards.recall_index import ReferencePrices, ShadowIndex
from harness.messages import Message
from harness.meter import meters
from harness.meter.pricers import Pricer
from harness.model import ChatRequest
from harness.store.history import StateHistory
from harness.testing import FunctionModel

CONFIG = CompactionConfig.count_only(4, 2, recall=RecallConfig(budget_tokens=60, top_k=2))


def _agent() -> Agent:
    model = FunctionModel(lambda _: "Noted, the east dock it is.", model_name="scripted")
    summary = FunctionModel(lambda _: "(placeholder)", model_name="scripted")
    history = StateHistory("s")
    engine = make_engine(CONFIG, model, history=history, summary_model=summary)
    return Agent(model, "You are a helper.", engine=engine, history=history)


def test_a_request_prices_no_reference_text_an_earlier_one_priced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before the index, every request priced every shadowed original again (to see whether it
    fits whole), so a request's work grew with everything compacted before it."""
    priced: Counter[str] = Counter()
    real = meters.message_price

    def counting(pricer: Pricer, message: Message) -> int:
        if message.name == RECALL_NAME:
            priced[message.content] += 1
        return real(pricer, message)

    monkeypatch.setattr(meters, "message_price", counting)
    agent = _agent()
    for n in range(40):
        agent.call(f"Turn {n}: pallet {n} goes to the east dock, seal SL-{1000 + n}. " * 3)
    result = agent.call("Which seal had pallet 3?")
    assert result.requests[0].recall is not None and result.requests[0].recall.shadowed > 30
    assert priced and max(priced.values()) == 1


def test_each_original_is_derived_once_however_many_requests() -> None:
    index = ShadowIndex(lambda text: len(text) < 40)
    originals = [
        Message.user(f"fact {n}: the code is K-{n}. And more words here.") for n in range(50)
    ]
    for n in range(1, 51):
        index.shadowed([originals[:n], []], originals[n - 1 :])
    assert index.derived == 49  # every original but the last, once each


def test_reference_prices_price_each_distinct_message_once() -> None:
    calls: list[str] = []
    prices = ReferencePrices(lambda m: calls.append(m.content) or len(m.content))
    assert prices(Message.user("abc", name=RECALL_NAME)) == 3
    assert prices(Message.user("abc", name=RECALL_NAME)) == 3
    assert prices(Message.user("abc")) == 3
    assert calls == ["abc", "abc"]  # the name is part of the key


WORDS = st.sampled_from(["booking", "juniper.", "dock", "Valencia!", "密码。", "room\n", "x"])
MESSAGE = st.builds(
    lambda role, words: Message(role=role, content=" ".join(words)),
    st.sampled_from(["user", "assistant"]),
    st.lists(WORDS, min_size=0, max_size=10),
)


@settings(max_examples=80, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.lists(MESSAGE, max_size=3), st.lists(MESSAGE, max_size=2), st.integers(0, 6)),
        min_size=1,
        max_size=6,
    ),
    limit=st.integers(1, 60),
    reread=st.booleans(),
)
def test_the_index_answers_what_shadowed_answers(
    steps: list[tuple[list[Message], list[Message], int]], limit: int, reread: bool
) -> None:
    """Originals and spans grow, the context changes (a summary, a kept tail), a transcript is
    read again as equal but new objects: the index's answer is ``shadowed()``'s every time."""

    def fits(text: str) -> bool:
        return len(text) <= limit

    index = ShadowIndex(fits)
    originals: list[Message] = []
    spans: list[Message] = []
    for added, spanned, kept in steps:
        originals += added
        spans += spanned
        every = [*originals, *spans]
        context = [build_summary_message(" ".join(m.content for m in spanned)), *every[-kept:]]
        source = (
            [Message(role=m.role, content=m.content) for m in originals] if reread else originals
        )
        got = index.shadowed([source, spans], context)
        want = shadowed(every, context, fits)
        assert [(m.role, m.content) for m in got] == [(m.role, m.content) for m in want]


def test_a_store_that_rewrites_its_originals_is_derived_again() -> None:
    index = ShadowIndex(lambda _: True)
    first = [Message.user("alpha"), Message.user("beta")]
    assert [m.content for m in index.shadowed([first], [])] == ["alpha", "beta"]
    second = [Message.user("alpha"), Message.user("gamma")]
    assert [m.content for m in index.shadowed([second], [])] == ["alpha", "gamma"]
    assert index.derived == 3


def test_the_reference_message_is_priced_by_the_engines_meter_within_the_budget() -> None:
    sent: list[ChatRequest] = []
    model = FunctionModel(lambda r: sent.append(r) or "Noted.", model_name="scripted")
    summary = FunctionModel(lambda _: "(placeholder)", model_name="scripted")
    history = StateHistory("s")
    engine = make_engine(CONFIG, model, history=history, summary_model=summary)
    agent = Agent(model, "sys", engine=engine, history=history)
    for text in ("The password is juniper.", "Use the east dock.", "Pallets are wrapped."):
        agent.call(text)
    result = agent.call("What is the password again?")
    (found,) = [m for m in sent[-1].messages if m.name == RECALL_NAME]
    assert "[User] The password is juniper." in found.content
    record = result.requests[0].recall
    assert record is not None and record.tokens == engine.meter.price(found) <= 60


def test_the_search_index_is_updated_only_when_the_shadowed_texts_change() -> None:
    index = ShadowIndex(lambda _: True)
    first = [Message.user("alpha dock"), Message.user("beta dock")]
    built = index.index_of(first)
    assert index.index_of([Message.user("alpha dock"), Message.user("beta dock")]) is built
    assert index.indexed == 1
    assert [h.text for h in index.index_of(first[1:]).rank("dock")] == ["beta dock"]
    assert index.indexed == 2


def test_requests_between_two_compactions_share_one_search_index(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shadowed texts change at a compaction: the recall's index is built at most once
    per compaction, and a request between two reads no line's terms again (ranking read every
    shadowed original's terms before every request)."""
    read: list[str] = []
    real = text_search._doc
    monkeypatch.setattr(text_search, "_doc", lambda text: read.append(text) or real(text))
    sent: list[ChatRequest] = []
    config = CompactionConfig.count_only(12, 4, recall=RecallConfig(budget_tokens=60, top_k=2))
    model = FunctionModel(lambda r: sent.append(r) or "Noted.", model_name="scripted")
    summary = FunctionModel(lambda _: "(placeholder)", model_name="scripted")
    history = StateHistory("s")
    engine = make_engine(config, model, history=history, summary_model=summary)
    agent = Agent(model, "sys", engine=engine, history=history)
    compactions, shadowed = 0, 0
    for n in range(40):
        result = agent.call(f"Turn {n}: pallet {n} goes to dock {n % 3}.")
        compactions += len(result.compactions)
        shadowed = max([shadowed, *(r.recall.shadowed for r in result.requests if r.recall)])
    assert 3 < compactions < len(sent) / 2 and shadowed > 10
    assert engine._shadow.indexed <= compactions + 1  # type: ignore[attr-defined]
    assert len(read) <= (compactions + 1) * shadowed
