"""``AgentScopeEngine.read``: the loop reads each turn twice (before the request, and when the
answer is observed); the second read of the same turn, the meter's anchor unchanged, is served
from the first, and is exactly what a fresh engine reads (issue 48)."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness import CompactionConfig, Message, make_engine
from harness.compaction.agentscope.engine import AgentScopeEngine
from harness.compaction.engine import Turn
from harness.model import ChatRequest, Usage
from harness.store.history import StateHistory
from harness.testing import FunctionModel

MODEL = FunctionModel(lambda request: "ok")
HEADER = ChatRequest(messages=(Message.system("You are terse."),))
QUIET = CompactionConfig(trigger_tokens=1_000_000, trigger_messages=0)
"""A profile that never compacts here (its meter is ctxlab's anchored one)."""


def _engine() -> AgentScopeEngine:
    engine = make_engine(QUIET, MODEL)
    assert isinstance(engine, AgentScopeEngine)
    return engine


def _turn(texts: list[str]) -> Turn:
    return Turn.of(HEADER, [Message.user(text) for text in texts])


def test_the_second_read_of_a_turn_reads_nothing_again() -> None:
    engine = _engine()
    turn = _turn(["hello", "more"])
    first = engine.read(turn)
    calls: list[object] = []
    header = engine.meter.header

    def counted(*args: Any) -> tuple[int, str]:
        calls.append(args)
        return header(*args)

    engine.meter.header = counted  # type: ignore[method-assign, assignment]
    assert engine.read(turn) is first
    assert calls == []
    assert engine.read(_turn(["hello", "more"])) == first  # another turn: read, same figure
    assert len(calls) == 1


def test_a_new_anchor_is_read_not_served_from_before_it() -> None:
    """The anchor changes what the same turn reads: observe() anchors on the provider's count,
    and the next read of that turn is the count, not the estimate read before it."""
    engine = _engine()
    turn = _turn(["hello"])
    history = StateHistory("read")
    assert engine.before_request(history, turn) == []
    estimate = engine.read(turn)
    assert estimate.baseline == "estimate"
    observed = engine.observe(history, turn, Usage(prompt_tokens=5_000, completion_tokens=1))
    assert observed == estimate  # observe reads the request it anchors on
    after = engine.read(turn)
    assert (after.baseline, after.tokens) == ("usage", 5_000)


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.lists(st.sampled_from(["a", "bb", "上海", "x" * 40]), max_size=4),
                  st.integers(0, 3), st.one_of(st.none(), st.integers(1, 9_000))),
        min_size=1, max_size=8,
    )
)  # fmt: skip
# found by this test on main (the ledger checked the first, middle and last messages only): the
# history halved unread, then grew back to its length with equal messages at those three places
@example(steps=[(["a", "a", "a"], 0, None), (["上海", "a"], 1, None), ([], 0, None),
                (["a", "a", "a"], 1, None)])  # fmt: skip
def test_every_read_is_a_fresh_engines_read(steps: list[tuple[list[str], int, int | None]]) -> None:
    """Histories that grow or shrink, each turn read 1-4 times, some observed with a count:
    every reading equals one of an engine that reads only that turn, anchored the same way."""
    engine, history = _engine(), StateHistory("read")
    texts: list[str] = []
    anchor = None
    for added, reads, count in steps:
        texts = texts[: len(texts) // 2] + added if not added else texts + added
        turn = _turn(texts)
        fresh = _engine()
        fresh.meter.anchor = anchor
        want = fresh.read(turn)
        for _ in range(reads):
            assert engine.read(turn) == want
        if count is not None:
            assert engine.observe(history, turn, Usage(count, 1)) == want
            anchor = engine.meter.anchor
