"""A reopened session with a backlog of 100,000 messages is compacted in chunks that fit the
window, never dropped without a summary.

The session is a real state checkpoint on disk, reopened by ``HarnessAgent`` with ctxlab's
profile; the summary and memory model is a scripted one that refuses, as a server refuses, any
request larger than its window. Before the fix the one summary request held the whole backlog
(5 M characters), the model refused it, compaction failed open and the backlog left the context
with nothing but "(Summary unavailable)"; the flush of the prefix failed the same way.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from harness.compaction.agentscope import CompactionConfig, ctxlab_profile
from harness.compaction.agentscope.profile import CTXLAB_SUMMARY_CHUNK_TOKENS
from harness.errors import ContextLengthExceededError, ServerError
from harness.harness_agent import HarnessAgent
from harness.memory.runtime import MemoryConfig
from harness.messages import Message
from harness.meter.pricers import CHARS_PER_TOKEN
from harness.model import ChatRequest
from harness.store.statefile import AgentState, JsonStateStore
from harness.testing import FunctionModel

BACKLOG = 100_000
WINDOW_CHARS = int(CTXLAB_SUMMARY_CHUNK_TOKENS * CHARS_PER_TOKEN) + 10_000


def _size(request: ChatRequest) -> int:
    return sum(len(m.content) for m in request.messages)


def _window_model(request: ChatRequest) -> str:
    if _size(request) > WINDOW_CHARS:
        raise ContextLengthExceededError("Input is too long for requested model.", status_code=400)
    if request.purpose == "summary":
        last = request.messages[-1].content
        newest = last[last.rfind("Human: order ") :][:19]  # the chunk's newest order number
        return f"## SESSION INTENT\nship orders\n## SUMMARY\nup to {newest}\n"
    return {"flush": "NO_REPLY", "consolidation": "# Memory\n"}.get(request.purpose, "done")


def _reopened_backlog(root: Path, size: int = BACKLOG) -> None:
    messages = []
    for n in range(size // 2):
        messages += [Message.user(f"order {n:06d} ships to Hamburg"), Message.assistant("noted")]
    store = JsonStateStore(root / "u" / "state")
    store.save(AgentState("s1", messages))


@pytest.mark.slow  # a 100,000-message profile
def test_a_100000_message_backlog_is_summarised_in_chunks_that_fit(tmp_path: Path) -> None:
    _reopened_backlog(tmp_path)
    model = FunctionModel(_window_model)
    # ctxlab's profile less its identifier gate, whose cost on 50,000 order numbers (one regex
    # each) is its own matter and would triple this test's time
    profile = dataclasses.replace(ctxlab_profile(), gate=None)
    agent = HarnessAgent(
        model, workspace_root=tmp_path, user_id="u", session_id="s1", compaction=profile,
        memory=MemoryConfig(background_order="flush_first"),
    )  # fmt: skip
    result = agent.call("what is the last order?")
    agent.close()
    assert result.text == "done"
    summaries = [r for r in model.requests if r.purpose == "summary"]
    assert len(summaries) > 10 and max(_size(r) for r in summaries) <= WINDOW_CHARS
    (event,) = result.compactions
    assert not event.summary_failed and "Summary unavailable" not in event.summary
    assert "up to Human: order 0499" in event.summary  # the last chunk reached the newest orders
    first = agent.agent.context[0]
    assert first.is_summary and "Summary unavailable" not in first.content
    flushes = [r for r in model.requests if r.purpose == "flush"]
    assert flushes and max(_size(r) for r in flushes) <= WINDOW_CHARS


def test_a_chunk_that_fails_keeps_the_history_whole(tmp_path: Path) -> None:
    _reopened_backlog(tmp_path, 20_000)
    calls = {"summary": 0}

    def failing_from_the_third_chunk(request: ChatRequest) -> str:
        if request.purpose == "summary":
            calls["summary"] += 1
            if calls["summary"] >= 3:
                raise ServerError("upstream failed", status_code=500)
        return _window_model(request)

    model = FunctionModel(failing_from_the_third_chunk)
    agent = HarnessAgent(
        model, workspace_root=tmp_path, user_id="u", session_id="s1", disable_memory_hooks=True
    )
    with pytest.raises(ContextLengthExceededError):  # the provider's own error, after one retry
        agent.call("what is the last order?")
    agent.close()
    context = agent.agent.context
    assert not any(m.is_summary for m in context)  # no placeholder replaced the backlog
    assert context[0].content == "order 000000 ships to Hamburg"  # nothing was dropped
    assert len(context) == 20_001  # the backlog and the new question


def test_the_seed_profile_still_sends_one_summary_call() -> None:
    # AgentScope 2.0.3 (CompactionConfig()) has no chunking: the article's engine is unchanged
    assert CompactionConfig().summary_chunk_tokens is None


def test_every_chunk_call_carries_the_profiles_prompt_and_cap() -> None:
    # A backlog's chunk calls sent neither the summary budget's cap and words nor a configured
    # summary_max_tokens: a small model's chunk summary could run on to the server's window.
    from harness.compaction.agentscope.compactor import Compactor
    from harness.compaction.agentscope.config import resolve_thresholds

    requests: list[ChatRequest] = []

    def model(request: ChatRequest) -> str:
        requests.append(request)
        return "## SUMMARY\nshort"

    config = dataclasses.replace(
        ctxlab_profile(), trigger_messages=0, trigger_tokens=1_000, keep_tokens=100,
        summary_chunk_tokens=400, flush_before_compact=False, offload_before_compact=False,
        prune=None, gate=None,
    )  # fmt: skip
    compactor = Compactor(config, resolve_thresholds(config, "m"), FunctionModel(model))
    history = [Message.user(f"order {n:04d} ships to Hamburg, dock {n % 7}") for n in range(120)]
    assert compactor.force([*history, Message.user("next?")]) is not None
    summaries = [r for r in requests if r.purpose == "summary"]
    assert len(summaries) > 1  # chunked
    assert {r.max_tokens for r in summaries} == {compactor.budget}
    assert all("Keep the summary under" in r.messages[0].content for r in summaries)
