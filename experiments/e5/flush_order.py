"""Flush order: whether background maintenance runs before or after the memory flush.

Maintenance before the flush (the article's case) finds nothing to consolidate and leaves
MEMORY.md absent; flush first, and consolidation merges the fresh flush into a new MEMORY.md.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from experiments.claims import AS_SEED, Claim, cite
from experiments.e5.common import START, compared
from harness.builder import HarnessAgent
from harness.memory import BackgroundOrder, MemoryConfig, SteppingClock
from harness.model import ChatRequest
from harness.testing import FunctionModel

__all__ = ["flush_order_claims", "measure_flush_order"]

ORDERS: tuple[BackgroundOrder, ...] = ("maintenance_first", "flush_first")


def _reply(request: ChatRequest) -> str:
    if request.purpose == "flush":
        return "- exports via 上海港\n- customer ALPHA"
    if request.purpose == "consolidation":
        return "## Business\n- exports via 上海港\n- customer ALPHA"
    return "confirmed"


def _run_order(order: BackgroundOrder) -> dict[str, Any]:
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
        return {
            "maintenance": log.status if log else None,
            "log_line": log.log_line if log else None,
            "memory_exists": agent.workspace.memory_file.exists(),
            "daily_files": len(agent.workspace.daily_files()),
        }


def measure_flush_order() -> dict[str, Any]:
    return {order: _run_order(order) for order in ORDERS}


def _outcome(run: dict[str, Any]) -> str:
    memory = "present" if run["memory_exists"] else "absent"
    return f"{run['maintenance']}, MEMORY.md {memory}"


def flush_order_claims(order: dict[str, Any]) -> list[Claim]:
    return [
        compared(
            "E5-ORDER-MAINTENANCE-FIRST",
            "Maintenance before the flush skips and leaves MEMORY.md absent (the article's case).",
            "skipped, MEMORY.md absent",
            _outcome(order["maintenance_first"]),
            kind="article",
            article_source=cite(AS_SEED, "首次后台维护抢在 flush 落盘之前跑完，读到空台账就跳过了"),
        ),
        compared(
            "E5-ORDER-FLUSH-FIRST",
            "Flush before maintenance: consolidation merges the fresh "
            "flush into a new MEMORY.md (reasoned, never caught, in the article).",
            "written, MEMORY.md present",
            _outcome(order["flush_first"]),
            kind="article-computed",
            article_source=cite(
                AS_SEED, "反向样本（flush 先落盘、维护顺手合并出一份）我只在逻辑上推过，没抓到"
            ),
        ),
    ]
