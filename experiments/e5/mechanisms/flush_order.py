"""Flush order: whether background maintenance runs before or after the memory flush.

Maintenance before the flush (the article's case) finds nothing to consolidate and leaves
MEMORY.md absent; flush first, and consolidation merges the fresh flush into a new MEMORY.md.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from experiments.e5.common import START
from experiments.e5.view import E5View, FlushOutcome
from harness import FunctionModel, HarnessAgent, MemoryConfig
from harness.memory import BackgroundOrder, SteppingClock
from harness.model import ChatRequest
from lab import AS_SEED, ClaimSpec, Verdict, cite

__all__ = ["ORDER_SPECS", "measure_flush_order"]

ORDERS: tuple[BackgroundOrder, ...] = ("maintenance_first", "flush_first")


def _reply(request: ChatRequest) -> str:
    if request.purpose == "flush":
        return "- exports via 上海港\n- customer ALPHA"
    if request.purpose == "consolidation":
        return "## Business\n- exports via 上海港\n- customer ALPHA"
    return "confirmed"


def _run_order(order: BackgroundOrder) -> FlushOutcome:
    """One call and a close with the given background order; what maintenance left behind."""
    with tempfile.TemporaryDirectory() as tmp:
        agent = HarnessAgent(
            FunctionModel(_reply),
            "system",
            workspace_root=Path(tmp),
            user_id="lab-user",
            disable_compaction=True,
            clock=SteppingClock(START),
            memory=MemoryConfig(background_order=order),
        )
        agent.call("exports via 上海港, customer ALPHA")
        agent.close()
        log = agent.memory.maintenance_log[0]
        return FlushOutcome(
            maintenance=log.status if log else None,
            log_line=log.log_line if log else None,
            memory_exists=agent.workspace.memory_file.exists(),
            daily_files=len(agent.workspace.daily_files()),
        )


def measure_flush_order() -> dict[str, FlushOutcome]:
    return {order: _run_order(order) for order in ORDERS}


def _outcome(order: str) -> Callable[[E5View], Verdict]:
    def measure(view: E5View) -> Verdict:
        run = view.flush_order[order]
        memory = "present" if run.memory_exists else "absent"
        return Verdict(f"{run.maintenance}, MEMORY.md {memory}")

    return measure


ORDER_SPECS: tuple[ClaimSpec[E5View], ...] = (
    ClaimSpec(
        "E5-ORDER-MAINTENANCE-FIRST",
        "Maintenance before the flush skips and leaves MEMORY.md absent (the article's case).",
        _outcome("maintenance_first"),
        "skipped, MEMORY.md absent",
        cite(AS_SEED, "首次后台维护抢在 flush 落盘之前跑完，读到空台账就跳过了"),
    ),
    ClaimSpec(
        "E5-ORDER-FLUSH-FIRST",
        "Flush before maintenance: consolidation merges the fresh "
        "flush into a new MEMORY.md (reasoned, never caught, in the article).",
        _outcome("flush_first"),
        "written, MEMORY.md present",
        cite(AS_SEED, "反向样本（flush 先落盘、维护顺手合并出一份）我只在逻辑上推过，没抓到"),
        kind="article-computed",
    ),
)
