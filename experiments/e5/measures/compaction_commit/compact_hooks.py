"""AgentScope's pre-compaction hooks and ``disableCompaction``, run on scripted agents.

* the defaults of ``flushBeforeCompact``, ``offloadBeforeCompact`` and ``truncateArgs``, then
  one compaction of an agent configured with exactly those defaults: what the flush was handed,
  what the session transcript's ``compaction`` line holds, and a flush that raises (best
  effort: the compaction goes on);
* an agent with compaction disabled whose server overflows: no overflow retry either.
"""

from __future__ import annotations

import dataclasses
import logging
import tempfile
from pathlib import Path

from experiments.e5.common import qa_config
from experiments.e5.view.compaction_commit import CompactHooks, DisabledOverflow, LargerSummary
from harness import (
    Agent,
    CompactionConfig,
    ContextLengthExceededError,
    FunctionModel,
    HarnessAgent,
    Message,
    make_engine,
)
from harness.compaction.agentscope import CompactionRecord
from harness.errors import ServerError
from harness.memory import MemoryRuntime, MemoryWorkspace
from harness.model import ChatRequest
from harness.store.statefile import Transcript

__all__ = ["measure_compact_hooks", "measure_disabled_overflow", "measure_larger_summary"]

ROUNDS = 3
"""Q&A rounds of the hooks agent: trigger 5, keep 2 compacts once, in round 3."""


def _defaults_config() -> CompactionConfig:
    """Trigger 5, keep 2, with the three hooks exactly as AgentScope's defaults set them."""
    defaults = CompactionConfig()
    return dataclasses.replace(
        qa_config(5, 2),
        flush_before_compact=defaults.flush_before_compact,
        offload_before_compact=defaults.offload_before_compact,
        truncate_args=defaults.truncate_args,
    )


def _memory_model(flush_fails: bool, windows: list[str]) -> FunctionModel:
    """Answers each flush with one fact (or fails it); keeps every flush request's text."""

    def reply(request: ChatRequest) -> str:
        windows.append(request.messages[-1].content)
        if flush_fails:
            raise ServerError("memory backend down", status_code=503)
        return "- fact-from-prefix"

    return FunctionModel(reply)


def _run(root: Path, flush_fails: bool) -> tuple[int, int, int]:
    """(prefix messages replaced, of them the ones the flush was sent, of them the ones the
    transcript's compaction line holds) for one run of the hooks agent."""
    windows: list[str] = []
    runtime = MemoryRuntime(
        MemoryWorkspace(root, "u"), _memory_model(flush_fails, windows), tools_enabled=False
    )
    model = FunctionModel(
        lambda r: "SUMMARY" if r.purpose == "summary" else "reply-" + r.messages[-1].content[-1]
    )
    transcript = Transcript(root / "transcript.jsonl")
    engine = make_engine(_defaults_config(), model, flush=runtime.flush_prefix)
    agent = Agent(model, "system", engine=engine, transcript=transcript)
    events: list[CompactionRecord] = []
    try:
        for r in range(ROUNDS):
            events.extend(agent.call(f"question-{r}").compactions)
    except Exception:  # the failed flush stopped the call: nothing counts as replaced
        return 0, 0, 0
    cut = sum(e.cutoff.index for e in events if e.cutoff is not None)
    prefix = [t for r in range(ROUNDS) for t in (f"question-{r}", f"reply-{r}")][:cut]
    sent = "\n".join(windows)
    lines = [e for e in transcript.entries() if e["type"] == "compaction"]
    kept = [m["content"] for line in lines for m in line["prefix"]]
    return cut, sum(t in sent for t in prefix), sum(t in kept for t in prefix)


def measure_compact_hooks() -> CompactHooks:
    defaults = CompactionConfig()
    with tempfile.TemporaryDirectory() as tmp:
        replaced, flushed, offloaded = _run(Path(tmp) / "ok", flush_fails=False)
        quiet = logging.getLogger("harness")
        level = quiet.level
        quiet.setLevel(logging.ERROR)  # the failing flush's warning is expected here
        try:
            replaced_failing, _, _ = _run(Path(tmp) / "failing", flush_fails=True)
        finally:
            quiet.setLevel(level)
    return CompactHooks(
        flush_default=defaults.flush_before_compact,
        offload_default=defaults.offload_before_compact,
        truncate_args_default=defaults.truncate_args is not None,
        prefix_messages=replaced,
        flushed_messages=flushed,
        offloaded_messages=offloaded,
        compacted_despite_failing_flush=replaced_failing == replaced > 0,
    )


def measure_disabled_overflow() -> DisabledOverflow:
    """``disable_compaction=True`` over a count-only config (trigger 50, keep 2: with the
    engine on, the forced compaction would have something to replace), two calls in; then a
    server that overflows on the third call's first request, and would answer a retry."""
    seen = {"agent": 0}

    def reply(request: ChatRequest) -> str:
        if request.purpose != "agent":
            return "SUMMARY"
        seen["agent"] += 1
        if seen["agent"] == 3:
            raise ContextLengthExceededError("maximum context length", status_code=400)
        return "OK"

    with tempfile.TemporaryDirectory() as tmp:
        agent = HarnessAgent(
            FunctionModel(reply), "system", workspace_root=Path(tmp), compaction=qa_config(50, 2),
            disable_compaction=True, disable_memory_hooks=True, disable_memory_tools=True,
        )  # fmt: skip
        try:
            for r in range(3):
                agent.call(f"q{r}")
            outcome = "answered"
        except ContextLengthExceededError:
            outcome = "raised"
        finally:
            agent.close()
    return DisabledOverflow(agent_requests=seen["agent"] - 2, outcome=outcome)


def measure_larger_summary() -> LargerSummary:
    """AgentScope's defaults for the size check (``refuse_larger_summary`` off), trigger 5,
    keep 2, and a summariser that answers 4,000 characters for a three-message prefix."""
    model = FunctionModel(lambda r: "S" * 4_000 if r.purpose == "summary" else "OK")
    config = dataclasses.replace(
        qa_config(5, 2), refuse_larger_summary=CompactionConfig().refuse_larger_summary
    )
    agent = Agent(model, "system", engine=make_engine(config, model))
    for r in range(ROUNDS):
        before = [*agent.context, Message.user(f"q{r}")]
        events = agent.call(f"q{r}").compactions
        if events:
            cut = events[0].cutoff.index if events[0].cutoff is not None else 0
            return LargerSummary(
                committed=True,
                summary_chars=len(agent.context[0].content),
                prefix_chars=sum(len(m.content) for m in before[:cut]),
            )
    return LargerSummary(committed=False, summary_chars=0, prefix_chars=0)
