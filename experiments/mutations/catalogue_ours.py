"""Mutations for ctxlab's own rows (kind ``ctxlab``): X-BENCH, X-COST and E5's window table.

A row of ours that no mutation flips is as much a defect as a seed row that none flips: it
could not fail. Each entry here breaks one behaviour those rows read, and names the rows that
must notice; :mod:`experiments.mutations.catalogue` appends them to its ``MUTATIONS``.
"""

from __future__ import annotations

from typing import Any

from lab import Mutation, attr, wrap

__all__ = [
    "OUR_MUTATIONS",
    "checkpoint_before_span",
    "checkpoint_without_summary",
    "usage_not_read",
    "window_profile_ignored",
]

_DSH = "harness.compaction.dsh"
_05B = "@qwen2.5-coder-0.5b-instruct-q4_k_m"
_15B = "@qwen2.5-coder-1.5b-instruct-q4_k_m"


def checkpoint_without_summary(original: Any) -> Any:
    """DeepSeek-Harness's checkpoint framed around nothing: the preamble and an empty
    ``<compacted-summary>`` block, whatever the summary (or the gate) said."""

    def frame(_summary: str) -> Any:
        return original("")

    return frame


def checkpoint_before_span(original: Any) -> Any:
    """The event log's fold with a replace event put in front of the nodes it should shadow,
    which stay on the surface (a summary that removes nothing, under either engine)."""

    def apply(self: Any, event: Any) -> None:
        replace = event.replace_range
        shadowed = list(self.span(*replace)) if replace is not None else []
        original(self, event)
        if shadowed:
            after = self._nodes.index(event.seq) + 1
            self._nodes[after:after] = shadowed
            self._surface = None

    return apply


def usage_not_read(_original: Any) -> Any:
    """The client reads no ``usage`` from a response (as if the provider sent none)."""
    return lambda data: None


def window_profile_ignored(original: Any) -> Any:
    """The window lookup answers from AgentScope 2.0.3's table whatever table it is given."""
    from harness.meter.windows import AGENTSCOPE_2_0_3_WINDOWS

    def lookup(model: str, table: Any = None) -> int:
        return int(original(model, AGENTSCOPE_2_0_3_WINDOWS))

    return lookup


OUR_MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "DSH_CHECKPOINT_EMPTY",
        "the DSH checkpoint carries its preamble and an empty block, not the summary",
        wrap(f"{_DSH}.summarizer", "frame_checkpoint", checkpoint_without_summary),
        ("X-BENCH-DSH-OVER-AS" + _05B,),
    ),
    Mutation(
        "SPAN_KEPT",
        "the event log keeps the span a summary replaces on the surface, the summary in front",
        attr("harness.store.eventlog.surface.SurfaceManager", "apply", checkpoint_before_span),
        (
            "X-COST-E4-AGENTSCOPE-SHRINK",
            "X-COST-E4-AGENTSCOPE-BREAKEVEN",
            "X-COST-E4-DSH-SHRINK" + _15B,
            "X-COST-E4-DSH-BREAKEVEN" + _15B,
        ),
    ),
    Mutation(
        "USAGE_NOT_READ",
        "the client reads no usage from a response, so no call's tokens are known",
        wrap("harness.replies", "parse_usage", usage_not_read),
        ("X-COST-USAGE",),
    ),
    Mutation(
        "WINDOW_PROFILE_IGNORED",
        "the window lookup uses AgentScope 2.0.3's table whatever profile is configured",
        wrap("harness.meter.windows", "lookup_window", window_profile_ignored),
        ("E5-FALLBACK-OURS", "E5-FALLBACK-1M"),
    ),
)
