"""The recall through the engine, kept between requests: it recalls exactly what the plain
definition recalls (``shadowed()`` of every original from scratch, ranked by ``rank_lines``)
over sessions with common terms, compactions and a reopen; and one request's work stays the
same however long the session grew."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from harness import Agent, make_engine
from harness.compaction.agentscope import CompactionConfig
from harness.compaction.agentscope.engine import AgentScopeEngine
from harness.compaction.guards.recall import RecallConfig, RecallRecord, recall, shadowed
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.history import History, StateHistory
from harness.testing import FunctionModel

CONFIG = CompactionConfig.count_only(8, 3, recall=RecallConfig(budget_tokens=40, top_k=2))
WORDS = ["上海港", "booking", "BK-7", "dock", "seal", "7", "12", "juniper.", "Valencia!", "\n"]
SAID = st.lists(st.sampled_from(WORDS), min_size=1, max_size=7).map(" ".join)


def _agent(history: History, config: CompactionConfig = CONFIG) -> tuple[Agent, AgentScopeEngine]:
    model = FunctionModel(lambda _: "Noted: 上海港 booking.", model_name="scripted")
    summary = FunctionModel(lambda _: "(bookings so far)", model_name="scripted")
    engine = make_engine(config, model, history=history, summary_model=summary)
    assert isinstance(engine, AgentScopeEngine)
    return Agent(model, "sys", engine=engine, history=history), engine


def _plain(engine: AgentScopeEngine, history: History, query: str) -> RecallRecord | None:
    """The recall by its definition: every original tested, every candidate ranked."""
    config = CONFIG.recall
    assert config is not None
    context = history.messages()
    originals = [o.message for o in history.originals()]
    if not engine.spans.messages and not any(m.summary_kind for m in context):
        return recall(config, [], query, engine.meter.price)[1]
    every = [*originals, *engine.spans.messages]
    candidates = shadowed(every, context, engine._fits_whole)
    return recall(config, candidates, query, engine.meter.price)[1]


@settings(max_examples=40, deadline=None)
@given(
    said=st.lists(SAID, min_size=1, max_size=24),
    asked=st.lists(st.one_of(SAID, st.integers(0, 30)), min_size=1, max_size=4),
    reopen_at=st.integers(0, 24),
)
def test_the_kept_recall_is_the_plain_recall(
    said: list[str], asked: list[str | int], reopen_at: int
) -> None:
    """Turns with common terms, compactions every few turns, the log reopened midway, and
    questions that are new text or an earlier turn said again: each request's recall (the
    record: what was searched and recalled, and its cost) is the plain definition's."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        history = EventLogHistory(EventLog.open(path, durability="os"))
        agent, engine = _agent(history)
        for n, text in enumerate(said):
            if n == reopen_at:
                history = EventLogHistory(EventLog.open(path, durability="os"))
                agent, engine = _agent(history)
            agent.call(text)
            for question in asked:
                query = said[question % (n + 1)] if isinstance(question, int) else question
                assert engine.recall(history, query)[1] == _plain(engine, history, query)


def _session(turns: int) -> tuple[Agent, AgentScopeEngine]:
    config = CompactionConfig.count_only(8, 3, recall=RecallConfig(budget_tokens=90, top_k=3))
    agent, engine = _agent(StateHistory("s"), config)
    for n in range(turns):
        agent.call(f"question {n}: 上海港 booking BK-{n}")
    return agent, engine


def _request_work(turns: int) -> tuple[int, int, int, int]:
    """What one recall costs after another with the same common terms, counted: originals
    tested against the whole context, lookups for shadowed texts said again, texts scored, texts
    checked literally."""
    agent, engine = _session(turns)
    engine.recall(agent.history, "question 3: 上海港 booking BK-3")
    before = engine._shadow.work()
    found, record = engine.recall(agent.history, "question 7: 上海港 booking BK-7")
    assert record is not None and record.shadowed > turns / 2
    assert found is not None and "question 7: 上海港 booking BK-7" in found.content
    after = engine._shadow.work()
    return tuple(b - a for a, b in zip(before, after, strict=True))  # type: ignore[return-value]


def test_one_requests_recall_work_does_not_grow_with_the_session() -> None:
    """Before, a request tested every original against the context, checked every shadowed
    text for the query literally and scored every text holding a common term (``上海港``,
    ``booking``, ``question``: all of them): each grew with the session. Now none does."""
    early, late = _request_work(30), _request_work(300)
    assert early[:2] == late[:2] == (0, 0)  # no original tested, no text looked for again
    assert early[2] <= 32  # 27 shadowed texts: no term common yet, each text scored
    assert late[2] <= 3 and late[3] <= 3  # 288: the literal match and one score per shape
