"""Tests of harness.compaction.guards.recall: the shadowed originals that best match the newest
user message come back as labelled reference material within a budget, and what was recalled is
recorded. Properties: the budget is never exceeded, recalled text is verbatim from the log,
nothing still in the context is recalled. Scenarios through the real agent loop on both stores,
a reopened one included."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import Agent, make_engine
from harness.compaction.agentscope import CompactionConfig
from harness.compaction.agentscope.summary import build_summary_message
from harness.compaction.guards.recall import (
    RECALL_HEADING,
    RECALL_NAME,
    RecallConfig,
    recall,
    shadowed,
)
from harness.errors import ConfigError
from harness.messages import Message
from harness.meter import build_meter
from harness.model import ChatRequest
from harness.store.eventlog import EventLog, EventLogHistory
from harness.store.history import History, StateHistory
from harness.store.statefile import JsonStateStore, Transcript
from harness.testing import FunctionModel

METER = build_meter("agentscope-2.0.3")
EARLY = [
    Message.user("The booking for the Valencia shipment is SO-2026-2099."),
    Message.assistant("Noted."),
    Message.user("The password is juniper."),
    Message.assistant("Thanks."),
    Message.user("Give me a short checklist for the pallet labels."),
    Message.assistant("Labels first, then the documents."),
]


def test_the_best_match_for_the_query_is_recalled_verbatim_and_labelled() -> None:
    found, record = recall(
        RecallConfig(budget_tokens=200, top_k=1),
        EARLY,
        "What is the booking number of the Valencia shipment?",
        METER.price,
    )
    assert found is not None and found.name == RECALL_NAME
    assert found.content.startswith(RECALL_HEADING)
    assert record.recalled == ("The booking for the Valencia shipment is SO-2026-2099.",)
    assert record.tokens == METER.price(found) <= 200
    assert record.shadowed == len(EARLY)


def test_nothing_matches_nothing_is_recalled() -> None:
    found, record = recall(RecallConfig(), EARLY, "zzz qqq", METER.price)
    assert found is None and record.recalled == () and record.tokens == 0
    assert recall(RecallConfig(), EARLY, "  ", METER.price)[0] is None


def test_top_k_caps_the_recalled_messages() -> None:
    _, record = recall(RecallConfig(10_000, top_k=2), EARLY, "the", METER.price)
    assert len(record.recalled) == 2


def test_shadowed_leaves_out_what_the_context_still_holds_and_summaries() -> None:
    summary = build_summary_message("The password is juniper.")
    context = [summary, *EARLY[4:]]
    left = shadowed([*EARLY, summary], context)
    assert [m.content for m in left] == [EARLY[0].content, EARLY[1].content, EARLY[3].content]


def test_an_original_too_long_for_the_budget_is_recalled_in_verbatim_pieces() -> None:
    log = "\n".join(f"worker-{n} exported item {n} in 5{n} ms" for n in range(60))
    result = Message.tool("c1", f"{log}\nseal_no: SL-291623\n{log}", tool_name="lookup")
    pinned = build_summary_message("worker-7 exported item 7 in 57 ms")
    fits = lambda text: METER.price(Message.user(text)) <= 60  # noqa: E731
    candidates = shadowed([result], [pinned], fits)
    assert "seal_no: SL-291623" in [m.content for m in candidates]
    assert "worker-7 exported item 7 in 57 ms" not in [m.content for m in candidates]
    assert all(m.content in result.content and m.role == "tool" for m in candidates)
    _, record = recall(RecallConfig(150, 1), candidates, "What is the seal_no?", METER.price)
    assert record.recalled == ("seal_no: SL-291623",)


WORDS = st.sampled_from(["booking", "juniper", "dock", "Valencia", "密码", "夜莺", "room", "x"])
MESSAGES = st.lists(
    st.builds(
        lambda role, words: Message(role=role, content=" ".join(words)),
        st.sampled_from(["user", "assistant"]),
        st.lists(WORDS, min_size=1, max_size=12),
    ),
    max_size=12,
)


@settings(max_examples=80, deadline=None)
@given(
    originals=MESSAGES,
    kept=st.integers(0, 12),
    query=st.lists(WORDS, max_size=4).map(" ".join),
    budget=st.integers(1, 120),
    top_k=st.integers(1, 4),
)
def test_recall_invariants(
    originals: list[Message], kept: int, query: str, budget: int, top_k: int
) -> None:
    context = originals[len(originals) - min(kept, len(originals)) :]
    candidates = shadowed(originals, context)
    found, record = recall(RecallConfig(budget, top_k), candidates, query, METER.price)
    assert record.tokens <= budget
    assert len(record.recalled) <= top_k
    texts = {m.content for m in originals}
    in_context = "\n".join(m.content for m in context)
    for text in record.recalled:
        assert text in texts  # verbatim from the log
        assert text not in in_context  # nothing still in the context
    assert (found is None) == (record.recalled == ())


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ConfigError):
        RecallConfig(budget_tokens=0)
    with pytest.raises(ConfigError):
        RecallConfig(top_k=True)


# --- through the agent loop ---------------------------------------------------------------------

CONFIG = CompactionConfig.count_only(4, 2, recall=RecallConfig(budget_tokens=200, top_k=2))


def agent_on(history: History, sent: list[ChatRequest]) -> Agent:
    def reply(request: ChatRequest) -> str:
        sent.append(request)
        return "Noted."

    model = FunctionModel(reply, model_name="scripted")
    summary = FunctionModel(lambda _: "(placeholder)", model_name="scripted")
    engine = make_engine(CONFIG, model, history=history, summary_model=summary)
    return Agent(model, "You are a helper.", engine=engine, history=history)


def play(agent: Agent) -> None:
    for text in ("The password is juniper.", "Use the east dock.", "Pallets are wrapped."):
        agent.call(text)


def recalled_in(request: ChatRequest) -> list[Message]:
    return [m for m in request.messages if m.name == RECALL_NAME]


def check_recalled(agent: Agent, sent: list[ChatRequest]) -> None:
    result = agent.call("What is the password again?")
    assert result.requests[0].recall is not None
    assert "The password is juniper." in result.requests[0].recall.recalled
    (found,) = recalled_in(sent[-1])
    assert "[User] The password is juniper." in found.content
    assert sent[-1].messages.index(found) == 1  # right after the system prompt
    assert not any(m.name == RECALL_NAME for m in agent.context)  # never stored


def test_recall_from_the_engines_own_spans_on_a_state_history_without_originals() -> None:
    sent: list[ChatRequest] = []
    agent = agent_on(StateHistory("s"), sent)
    play(agent)
    assert "The password is juniper." not in "\n".join(m.content for m in agent.context)
    check_recalled(agent, sent)


def test_recall_from_the_event_log_after_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    play(agent_on(EventLogHistory(EventLog(path)), []))
    sent: list[ChatRequest] = []
    check_recalled(agent_on(EventLogHistory(EventLog.open(path)), sent), sent)


def test_recall_from_the_transcript_after_a_reopen(tmp_path: Path) -> None:
    def history() -> StateHistory:
        store = JsonStateStore(tmp_path / "state")
        return StateHistory("s", store, Transcript(tmp_path / "s.jsonl"))

    play(agent_on(history(), []))
    sent: list[ChatRequest] = []
    check_recalled(agent_on(history(), sent), sent)


def test_without_recall_the_request_is_unchanged() -> None:
    sent: list[ChatRequest] = []
    history = StateHistory("s")
    model = FunctionModel(lambda r: sent.append(r) or "Noted.", model_name="scripted")
    summary = FunctionModel(lambda _: "(placeholder)", model_name="scripted")
    config = CompactionConfig.count_only(4, 2)
    engine = make_engine(config, model, history=history, summary_model=summary)
    agent = Agent(model, "sys", engine=engine, history=history)
    play(agent)
    result = agent.call("What is the password again?")
    assert result.requests[0].recall is None
    assert not recalled_in(sent[-1])


def test_before_any_compaction_the_originals_are_not_read(tmp_path: Path) -> None:
    class Counting(StateHistory):
        reads = 0

        def originals(self):  # type: ignore[no-untyped-def]
            Counting.reads += 1
            return super().originals()

    history = Counting("s", JsonStateStore(tmp_path / "state"), Transcript(tmp_path / "s.jsonl"))
    agent = agent_on(history, [])
    result = agent.call("The password is juniper.")
    assert Counting.reads == 0
    assert result.requests[0].recall is not None and result.requests[0].recall.shadowed == 0
    play(agent)
    assert Counting.reads > 0  # compacted: the transcript is the recall's source
