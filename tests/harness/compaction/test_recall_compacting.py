"""A compaction updates the recall's kept candidates from what it changed (issue 48): the
originals whose text the context held, the pieces it held, and the texts a summary may hold
again are tested, not every original; the search index reads only the texts the compaction
added. What is recalled is what ``shadowed()`` from scratch gives, and the index extended is the
index built again, hit for hit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.recall_session import recall_session

from harness import text_search
from harness.compaction.agentscope.summary import build_summary_message
from harness.compaction.guards.recall import shadowed
from harness.compaction.guards.recall_index import ShadowIndex
from harness.messages import Message
from harness.text_search import LineIndex, SearchLine


def _pairs(messages: list[Message]) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in messages]


def test_a_compaction_tests_what_the_context_held_not_every_original() -> None:
    """Before, a request after a compaction tested every original against the new context
    (500 here, growing with the session); now only the originals and pieces the old context
    held, and the compaction's summary is looked through for the shown texts."""
    index = ShadowIndex(lambda _: True)
    originals = [Message.user(f"turn {n}: pallet {n} to dock {n % 3}") for n in range(500)]
    originals.append(Message.assistant("ok"))
    context = [build_summary_message("pallets so far"), *originals[-4:]]
    assert len(index.shadowed([originals, []], context)) == 497
    tested = index.tested
    # the compaction: a new summary quoting one shadowed turn, and a two-message tail
    context = [build_summary_message("so far: turn 7: pallet 7 to dock 1"), *originals[-2:]]
    got = index.shadowed([originals, []], context)
    assert _pairs(got) == _pairs(shadowed(originals, context))
    assert "turn 7: pallet 7 to dock 1" not in [m.content for m in got]
    assert "turn 498: pallet 498 to dock 0" in [m.content for m in got]
    assert index.tested - tested <= 4  # the four originals the old context held


def test_a_compacting_turn_reads_only_the_texts_it_added(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search index of the candidates is extended by a compaction's texts: a session's
    compactions read each shadowed text's terms once in all (before, every compaction read
    every candidate's again)."""
    read: list[str] = []
    real = text_search._doc
    monkeypatch.setattr(text_search, "_doc", lambda text: read.append(text) or real(text))
    session = recall_session(80)
    assert session.compactions > 8 and session.shadowed > 40
    posted = [t for t in read if t.startswith("Turn ")]
    assert len(posted) <= session.shadowed + 4  # each once (the query's own text aside)


@st.composite
def _lines(draw: st.DrawFn) -> list[str]:
    words = st.sampled_from(["上海港", "booking", "BK-7", "dock", "seal", "7", "x", "上海"])
    return draw(st.lists(st.lists(words, min_size=1, max_size=6).map(" ".join), max_size=30))


@pytest.mark.quick_examples(15)  # an index built per example: [full] under -m slow
@settings(max_examples=60, deadline=None)
@given(first=_lines(), then=_lines(), queries=st.lists(_lines(), min_size=1, max_size=3))
def test_an_extended_index_ranks_as_one_built_again(
    first: list[str], then: list[str], queries: list[list[str]]
) -> None:
    """Lines added after the others (a compaction's span), with the texts kept by shape for a
    query asked before: every query's hits are those of an index of all the lines, score and
    order included."""
    lines = [SearchLine("shadowed", n, text) for n, text in enumerate([*first, *then])]
    grown = LineIndex(lines[: len(first)], common=3)
    for query in queries:
        list(grown.ranked(" ".join(query)))  # its texts kept by shape for these terms
    grown.extend(lines[len(first) :])
    built = LineIndex(lines, common=3)
    for query in [*queries, ["上海港 booking"]]:
        text = " ".join(query)
        assert list(grown.ranked(text)) == list(built.ranked(text))
        assert grown.rank(text, limit=len(lines)) == built.rank(text, limit=len(lines))


WORDS = st.sampled_from(["booking", "juniper.", "dock", "Valencia!", "密码。", "room\n", "x"])
MESSAGE = st.builds(
    lambda role, words: Message(role=role, content=" ".join(words)),
    st.sampled_from(["user", "assistant"]),
    st.lists(WORDS, min_size=0, max_size=8),
)
STEP = st.one_of(
    st.tuples(st.just("say"), st.lists(MESSAGE, min_size=1, max_size=3)),
    st.tuples(st.just("compact"), st.integers(0, 5), st.integers(0, 60), st.integers(0, 30)),
    st.tuples(st.just("keep-front"), st.integers(0, 5), st.integers(0, 60), st.integers(0, 30)),
    st.tuples(st.just("reread"), st.just(0)),
)


@pytest.mark.quick_examples(30)  # sessions of many requests: [full] under -m slow
@settings(max_examples=100, deadline=None)
@given(steps=st.lists(STEP, min_size=1, max_size=16), limit=st.integers(1, 40))
def test_the_answer_after_each_compaction_is_shadowed_from_scratch(
    steps: list[tuple[object, ...]], limit: int
) -> None:
    """Compactions whose summary quotes any stretch of what was said (shadowed texts and
    pieces come back, texts the old context held leave it), with the context's first message
    kept or replaced: the kept answer is ``shadowed()`` from scratch, message for message."""
    index = ShadowIndex(lambda text: len(text) <= limit)
    originals: list[Message] = []
    context: list[Message] = [Message.system("sys")]
    for kind, *args in steps:
        if kind == "say":
            originals += args[0]  # type: ignore[operator]
            context = [*context, *args[0]]  # type: ignore[misc]
        elif kind in ("compact", "keep-front"):
            kept, start, size = args  # type: ignore[misc]
            said_text = "\n".join(m.content for m in originals)
            quote = build_summary_message(said_text[start : start + size] or "so far")
            tail = context[len(context) - min(len(context) - 1, kept) :]
            front = context[:1] if kind == "keep-front" else []
            context = [*front, quote, *tail]
        elif kind == "reread":
            originals = [Message(role=m.role, content=m.content) for m in originals]
        got = index.shadowed([originals, []], context)
        want = shadowed(originals, context, lambda text: len(text) <= limit)
        assert _pairs(got) == _pairs(want)
