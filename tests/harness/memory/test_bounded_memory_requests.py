"""The flush and consolidation requests obey a budget, however large MEMORY.md, the backlog or
the fresh entries are (unbounded, a 54 MB MEMORY.md was sent whole to both, so neither could
ever succeed again).

MEMORY.md inside either request is cut at ``max_context_tokens`` exactly as injection cuts it
(the seed's 8,000-token read cap); a conversation too long for the rest of the budget is flushed
in chunks, fresh entries are consolidated in batches, and nothing is lost on the way: every
message reaches some flush request, every entry some consolidation request, the watermark
reaches the newest entry and a MEMORY.md the model saw only cut is kept whole in the archive.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.memory_invariants import FakeClock

from harness.harness_agent import HarnessAgent
from harness.memory.consolidation import Consolidator
from harness.memory.flush import MemoryFlusher
from harness.memory.runtime import MemoryConfig
from harness.memory.workspace import MemoryWorkspace
from harness.messages import Message
from harness.meter.pricers import CHARS_PER_TOKEN
from harness.model import ChatRequest
from harness.testing import FunctionModel

BUDGET_TOKENS = 20_000
BUDGET_CHARS = int(BUDGET_TOKENS * CHARS_PER_TOKEN)
CONSOLIDATED = "# Memory\n- facts"
ENTRIES = 160
"""Fresh entries of about 900 characters each: some three consolidation budgets."""


def _size(request: ChatRequest) -> int:
    return sum(len(m.content) for m in request.messages)


def _answer(request: ChatRequest) -> str:
    return {"flush": "- a fact", "consolidation": CONSOLIDATED}.get(request.purpose, "ok")


def test_a_huge_memory_md_is_cut_in_flush_and_consolidation_and_kept_whole(tmp_path: Path) -> None:
    huge = "".join(f"- fact {n}: " + "m" * 90 + "\n" for n in range(50_000))  # 5 MB
    (tmp_path / "u").mkdir()
    (tmp_path / "u" / "MEMORY.md").write_text(huge, encoding="utf-8")
    model = FunctionModel(_answer)
    config = MemoryConfig(background_order="flush_first")
    agent = HarnessAgent(
        model, workspace_root=tmp_path, user_id="u", session_id="s1", memory=config,
        clock=FakeClock(), disable_compaction=True,
    )  # fmt: skip
    agent.call("remember: the port is Shanghai")
    assert agent.await_quiescence(30)
    agent.close()
    by_purpose = {r.purpose: r for r in model.requests}
    assert {"agent", "flush", "consolidation"} <= set(by_purpose)
    for purpose in ("flush", "consolidation"):
        assert _size(by_purpose[purpose]) <= BUDGET_CHARS, purpose
        assert "memory truncated" in by_purpose[purpose].messages[-1].content
    kept = list((tmp_path / "u" / "memory" / "archive").glob("MEMORY-*.md"))
    assert [p.read_text(encoding="utf-8") for p in kept] == [huge]
    assert (tmp_path / "u" / "MEMORY.md").read_text(encoding="utf-8") == CONSOLIDATED + "\n"


@pytest.mark.slow  # a long-backlog profile
def test_a_long_backlog_is_flushed_in_chunks_that_each_fit(tmp_path: Path) -> None:
    workspace = MemoryWorkspace(tmp_path, "u", FakeClock())
    model = FunctionModel(_answer)
    flusher = MemoryFlusher(model, workspace, max_request_tokens=BUDGET_TOKENS)
    backlog = [Message.user(f"turn {n:05d} " + "x" * 480) for n in range(4_000)]  # ~2 MB
    flusher.flush(backlog)
    sizes = [_size(r) for r in model.requests]
    assert len(sizes) > 1 and max(sizes) <= BUDGET_CHARS
    sent = "".join(r.messages[-1].content for r in model.requests)
    assert all(f"turn {n:05d} " in sent for n in range(4_000))  # every message reached a flush
    assert len(workspace.entries()) == len(sizes)


def test_many_fresh_entries_are_consolidated_in_batches_up_to_the_newest(tmp_path: Path) -> None:
    # ENTRIES are about three budgets' worth: enough for several batches (each entry is
    # appended and every batch reparses the ledger, so the cost grows as the square)
    workspace = MemoryWorkspace(tmp_path, "u", FakeClock())
    for n in range(ENTRIES):
        workspace.append_entry("Memory Flush", f"- entry {n:04d} " + "e" * 900)
    model = FunctionModel(_answer)
    outcome = Consolidator(model, workspace, max_request_tokens=BUDGET_TOKENS).consolidate()
    sizes = [_size(r) for r in model.requests]
    assert outcome.status == "written" and outcome.entries == ENTRIES
    assert len(sizes) >= 3 and max(sizes) <= BUDGET_CHARS
    sent = "".join(r.messages[-1].content for r in model.requests)
    assert all(f"- entry {n:04d} " in sent for n in range(ENTRIES))
    assert workspace.read_watermark() == workspace.entries()[-1].instant
    assert workspace.entries(since=workspace.read_watermark()) == []
