"""Tests of harness.compaction.guards.recall_index: the recall's per-request work does not grow
with the session (each original derived once, each reference text priced once), and the index
answers exactly what ``shadowed()`` answers from scratch."""

from __future__ import annotations

from collections import Counter
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.recall_session import recall_session

from harness import Agent, make_engine, text_search
from harness.compaction.agentscope import CompactionConfig
from harness.compaction.agentscope.summary import build_summary_message
from harness.compaction.guards.recall import RECALL_NAME, RecallConfig, shadowed
from harness.compaction.guards.recall_ends import TextEnds
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
    session = recall_session(40)
    compactions, shadowed = session.compactions, session.shadowed
    assert 3 < compactions < len(session.sent) / 2 and shadowed > 10
    assert session.engine._shadow.indexed <= compactions + 1  # type: ignore[attr-defined]
    assert len(read) <= (compactions + 1) * shadowed


STEP = st.one_of(
    st.tuples(st.just("say"), st.lists(MESSAGE, min_size=1, max_size=3)),
    st.tuples(st.just("compact"), st.integers(0, 5)),
    st.tuples(st.just("quote"), st.integers(0, 40), st.integers(0, 40)),
    st.tuples(st.just("reread"), st.just(0)),
    st.tuples(st.just("ask"), st.just(0)),
    st.tuples(st.just("span"), st.lists(MESSAGE, min_size=1, max_size=2)),
    st.tuples(st.just("across"), st.integers(0, 30)),
)


def _across(candidates: list[Message], at: int) -> list[Message]:
    """Two messages that hold a candidate's text only together, joined by the context's line
    break (a text that comes back across the end of what the context held before)."""
    broken = [m.content for m in candidates if "\n" in m.content.strip()]
    if not broken:
        return []
    text = broken[at % len(broken)]
    cut = text.index("\n", len(text) - len(text.lstrip()))
    return [Message.assistant(text[:cut]), Message.user(text[cut + 1 :])]


@settings(max_examples=150, deadline=None)
@given(steps=st.lists(STEP, min_size=1, max_size=14), limit=st.integers(1, 60))
def test_the_kept_answer_is_shadowed_from_scratch_as_the_session_goes(
    steps: list[tuple[object, ...]], limit: int
) -> None:
    """A session as the recall sees it: messages said (the context gains them), compactions
    (a summary and a kept tail), a message quoting any stretch of the conversation so far (a
    shadowed text comes back), a shadowed text said again in two requests (it is in the context
    only across their line break), spans the store never saw, the store's list read again as
    equal new objects, and requests with nothing new: the kept answer is ``shadowed()``
    computed from scratch, text for text, every time."""
    index = ShadowIndex(lambda text: len(text) <= limit)
    originals: list[Message] = []
    spans: list[Message] = []
    context: list[Message] = []
    got: list[Message] = []
    for kind, *args in steps:
        if kind == "span":  # an engine's own span, in no store's list (a later original may be)
            spans += args[0]  # type: ignore[operator]
        elif kind == "across":
            for message in _across(got, args[0]):  # type: ignore[arg-type]
                originals.append(message)
                context = [*context, message]
                got = index.shadowed([originals, spans], context)
        if kind == "say":
            originals += args[0]  # type: ignore[operator]
            context = [*context, *args[0]]  # type: ignore[misc]
        elif kind == "compact":
            tail = context[len(context) - min(len(context), args[0]) :]  # type: ignore[operator]
            spans += [m for m in context[: len(context) - len(tail)] if m.content]
            context = [build_summary_message("so far"), *tail]
        elif kind == "quote":
            said_text = "\n".join(m.content for m in originals)
            start, size = args  # type: ignore[misc]
            quote = Message.user(said_text[start : start + size])  # type: ignore[operator]
            originals.append(quote)
            context = [*context, quote]
        elif kind == "reread":
            originals = [Message(role=m.role, content=m.content) for m in originals]
        got = index.shadowed([originals, spans], context)
        want = shadowed([*originals, *spans], context, lambda text: len(text) <= limit)
        assert [(m.role, m.content) for m in got] == [(m.role, m.content) for m in want]


def test_a_request_with_nothing_new_tests_no_original_and_a_new_message_only_itself() -> None:
    """Before, every request tested every original against the whole context (the cost grew
    with everything compacted before); now a request with the same context and originals
    tests none, and one after a new message tests the new original only and looks for the
    shadowed texts only where the message could end one."""
    index = ShadowIndex(lambda _: True)
    originals = [Message.user(f"turn {n}: pallet {n} to dock {n % 3}") for n in range(500)]
    context = [build_summary_message("pallets so far"), *originals[-4:]]
    first = index.shadowed([originals, []], context)
    assert len(first) == 496 and index.tested == 500
    for _ in range(5):
        assert index.shadowed([originals, []], context) is first
    assert index.tested == 500
    said_now = Message.user("and pallet 600 to dock 1")
    looked = index.work()[1]
    index.shadowed([[*originals, said_now], []], [*context, said_now])
    assert index.tested == 501
    # the 496 shadowed texts are found by how they end: a lookup per character gained (and
    # the few texts ending so), not a search for each
    assert index.work()[1] - looked < 2 * len("\n" + said_now.content)


def test_a_text_said_again_across_two_requests_is_no_longer_shadowed() -> None:
    """The context holds a shadowed text again only across the line break between the end of
    what it held and a new message: it must be looked for from before that end."""
    index = ShadowIndex(lambda _: True)
    old = Message.user("room\n x")
    originals = [old, Message.user("y")]
    context = [build_summary_message("so far"), originals[1]]
    assert [m.content for m in index.shadowed([originals, []], context)] == ["room\n x"]
    for said_now in (Message.assistant("the room"), Message.user(" x")):
        originals.append(said_now)
        context = [*context, said_now]
        got = index.shadowed([originals, []], context)
    assert got == shadowed([*originals], context) == []


def test_an_original_saying_what_only_a_later_source_held_takes_its_place() -> None:
    """The engine's own spans come after the store's originals: when the store's list gains a
    text only a span gave, the text moves to the store's place (and message)."""
    index = ShadowIndex(lambda _: True)
    spans = [Message.assistant("the seal is SL-4")]
    context = [build_summary_message("so far")]
    assert [m.role for m in index.shadowed([[], spans], context)] == ["assistant"]
    originals = [Message.user("the seal is SL-4"), Message.user("ok")]
    context = [*context, originals[1]]
    got = index.shadowed([originals, spans], context)
    want = shadowed([*originals, *spans], context)
    assert [(m.role, m.content) for m in got] == [(m.role, m.content) for m in want]
    assert [m.role for m in got] == ["user"]


@settings(max_examples=300, deadline=None)
@given(
    texts=st.sets(st.text(alphabet="ab\n上", min_size=1, max_size=7), max_size=12),
    seen=st.text(alphabet="ab\n上", max_size=30),
    data=st.data(),
)
def test_the_texts_ending_past_a_point_are_those_found_from_there(
    texts: set[str], seen: str, data: st.DataObject
) -> None:
    """TextEnds finds, by lookups of how texts end, exactly the texts a search of each one
    finds in the part of the context that could hold it anew."""
    start = data.draw(st.integers(0, len(seen)))
    ends = TextEnds(sorted(texts))
    gone = data.draw(st.sets(st.sampled_from(sorted(texts)))) if texts else set()
    for text in gone:
        ends.remove(text)
    kept = texts - gone
    assert ends.size == len(kept)
    want = {t for t in kept if seen.find(t, max(0, start - len(t) + 1)) >= 0}
    assert ends.ending_past(seen, start) == want


def test_the_kept_answer_is_the_same_when_it_looks_only_where_the_context_grew() -> None:
    """The session test again with the lookup by how texts end always chosen (a session of a
    few short texts otherwise looks for each text, the cheaper way there)."""
    with mock.patch.object(TextEnds, "cost", lambda self, gained: -1):
        test_the_kept_answer_is_shadowed_from_scratch_as_the_session_goes()
        test_a_text_said_again_across_two_requests_is_no_longer_shadowed()
