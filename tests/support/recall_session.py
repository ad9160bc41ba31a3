"""A recalling agent session of numbered pallet turns (a scripted model, a placeholder summary,
the recall on a 12/4 count-only budget), for the tests that count the recall's work across a
session's compactions (tests/harness/compaction/test_recall_index.py, test_recall_compacting.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from harness import Agent, make_engine
from harness.compaction.agentscope import CompactionConfig
from harness.compaction.engine import CompactionEngine
from harness.compaction.guards.recall import RecallConfig
from harness.model import ChatRequest
from harness.store.history import StateHistory
from harness.testing import FunctionModel


@dataclass
class RecallSession:
    """What a session of ``turns`` pallet turns did: its engine, the requests the model was
    sent, the compactions, and the most originals one request's recall had shadowed."""

    engine: CompactionEngine
    sent: list[ChatRequest] = field(default_factory=list)
    compactions: int = 0
    shadowed: int = 0


def recall_session(turns: int) -> RecallSession:
    """Play ``turns`` turns ("Turn N: pallet N goes to dock N % 3.") through a recalling agent."""
    sent: list[ChatRequest] = []
    config = CompactionConfig.count_only(12, 4, recall=RecallConfig(budget_tokens=60, top_k=2))
    model = FunctionModel(lambda r: sent.append(r) or "Noted.", model_name="scripted")
    summary = FunctionModel(lambda _: "(placeholder)", model_name="scripted")
    history = StateHistory("s")
    engine = make_engine(config, model, history=history, summary_model=summary)
    agent = Agent(model, "sys", engine=engine, history=history)
    session = RecallSession(engine, sent)
    for n in range(turns):
        result = agent.call(f"Turn {n}: pallet {n} goes to dock {n % 3}.")
        session.compactions += len(result.compactions)
        searched = [r.recall.shadowed for r in result.requests if r.recall]
        session.shadowed = max([session.shadowed, *searched])
    return session
