"""ctxlab's own compaction profile (``HarnessAgent``'s default): AgentScope 2.0.3's triggers and
tail plus what neither seed has, and the constants X-BENCH chose it with."""

from __future__ import annotations

from harness.compaction.agentscope.config import CompactionConfig
from harness.compaction.guards.gate import GateConfig
from harness.compaction.guards.thrash import ThrashConfig

__all__ = [
    "CTXLAB_GATE",
    "CTXLAB_SUMMARY_BUDGET",
    "CTXLAB_SUMMARY_CHUNK_TOKENS",
    "ctxlab_profile",
]

CTXLAB_GATE = GateConfig(definitions=True, budget_tokens=320, max_family=3)
"""The gate of ctxlab's profile: definitions, reasons and rules too, ranked by who said them,
with a larger budget; an identifier that shares its shape with more than three others in one
message (``worker-1`` … ``worker-8`` of a tool's listing) is a table's row, not a fact."""


CTXLAB_SUMMARY_CHUNK_TOKENS = 16_000
"""ctxlab's profile: the largest transcript one summary call carries (estimated tokens), well
inside every window of the table; a longer backlog is summarised in chunks."""


CTXLAB_SUMMARY_BUDGET = 0.4
"""ctxlab's profile: a summary may take 40 % of the room between the tail and the token trigger,
so a compaction leaves the rest for the conversation to go on in. X-BENCH chose it: at half, its
summaries carried more tokens than the reference prompt's for the facts they kept; at 40 %, with
the gate reserved two thirds (:data:`~harness.compaction.guards.budget.GATE_RESERVE`), a
summary text that keeps no fact still let the gate keep every planted fact of the 2K and 8K
conversations."""


def ctxlab_profile() -> CompactionConfig:
    """ctxlab's own default (``HarnessAgent``'s): AgentScope 2.0.3's triggers and tail, plus
    what neither seed has: the identifier-survival gate (with definitions, :data:`CTXLAB_GATE`),
    the size check (a summary not smaller than its span is refused), the summary budget
    (:data:`CTXLAB_SUMMARY_BUDGET`), the echo filter, the source check, backlog chunking and
    the thrash guard.
    Experiments that
    reproduce the article use ``CompactionConfig()`` (all off) instead."""
    return CompactionConfig(
        gate=CTXLAB_GATE, thrash=ThrashConfig(), refuse_larger_summary=True,
        summary_budget=CTXLAB_SUMMARY_BUDGET, summary_chunk_tokens=CTXLAB_SUMMARY_CHUNK_TOKENS,
        strip_echo=True, drop_unsourced=True,
    )  # fmt: skip
