"""``message_view()``'s promise, on both stores: the same list object only grows at its end, any
other change is a new list (:mod:`harness.store.protocol`). The engines' ledgers take the same
list again as proof that the history only grew (:class:`harness.meter.Ledger`), so a store that
broke the promise would have them price a history that is no longer there: each step also
checks that an engine kept across the steps reads what a fresh engine reads."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_history_protocol import compact

from harness import CompactionConfig, Message, make_engine
from harness.compaction.agentscope.engine import AgentScopeEngine
from harness.compaction.engine import Turn
from harness.fs.root import SafeRoot
from harness.model import ChatRequest
from harness.store.history import History
from harness.store.sessions import open_history
from harness.testing import FunctionModel

MODEL = FunctionModel(lambda request: "ok")
HEADER = ChatRequest(messages=(Message.system("You are terse."),))
QUIET = CompactionConfig(trigger_tokens=1_000_000, trigger_messages=0)

STEPS = st.lists(
    st.sampled_from(["append", "append equal", "compact", "other appends", "other compacts"]),
    min_size=1,
    max_size=8,
)


def _engine() -> AgentScopeEngine:
    engine = make_engine(QUIET, MODEL)
    assert isinstance(engine, AgentScopeEngine)
    return engine


def _step(step: str, history: History, other: History, count: int) -> None:
    if step == "append":
        history.append([Message.user(f"question {count}"), Message.assistant("ok")])
    elif step == "append equal":  # equal to what is there already: only identity tells apart
        history.append([Message.user("again"), Message.assistant("ok")])
    elif step == "compact":
        if len(history.messages()) > 3:
            compact(history)
    else:  # another writer of the same session, then this one catches up
        other.catch_up()  # type: ignore[attr-defined]
        if step == "other appends":
            other.append([Message.user("again"), Message.assistant("ok")])
        elif len(other.messages()) > 3:
            compact(other)
        history.catch_up()  # type: ignore[attr-defined]


@pytest.mark.parametrize("store", ["state", "eventlog"])
@settings(max_examples=15, deadline=None)
@given(steps=STEPS)
def test_the_view_only_grows_or_is_a_new_list(store: str, steps: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        fs = SafeRoot(Path(folder))
        history = open_history(fs, "s1", store)
        other = open_history(fs, "s1", store)
        engine = _engine()
        view = history.message_view()  # type: ignore[attr-defined]
        held = list(view)
        for count, step in enumerate(steps):
            _step(step, history, other, count)
            now = history.message_view()  # type: ignore[attr-defined]
            if now is view:
                assert all(a is b for a, b in zip(now, held, strict=False))
                assert len(now) >= len(held)
            assert list(now) == history.messages()
            turn, copied = Turn.of_history(HEADER, history), Turn.of(HEADER, history.messages())
            assert turn.source is now and copied.source is None
            assert turn == copied  # the same request wherever the history was read from
            assert engine.read(turn) == _engine().read(copied)
            view, held = now, list(now)
