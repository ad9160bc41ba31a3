"""The mutations for the last seed claims that had no row and the thresholds no probe
met at their edge, each broken the way an audit broke them (recovery catching any 400, a
threshold off by one, a switch stopping too much, a summary request losing its tools);
:mod:`experiments.mutations.catalogue` appends them to its ``MUTATIONS``."""

from __future__ import annotations

from unittest import mock

from experiments.mutations.patches_seed_claims import (
    after_failed_call,
    archive_at_limit,
    cap_one_token_higher,
    check_first_request_only,
    drops_checkpoint,
    hooks_off_keeps_maintenance,
    offload_one_above,
    pressure_strictly_above,
    retain_strictly,
    smaller_strictly,
    source_without_lines,
    summary_without_tools,
    tools_off_stops_flush,
    watermark_before_write,
)
from harness.errors import BadRequestError
from lab import Mutation, attr, wrap

__all__ = ["SEED_CLAIM_MUTATIONS"]

_DSH = "harness.compaction.dsh"
_RUNTIME = "harness.memory.runtime.MemoryRuntime"
SEED_CLAIM_MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "OVERFLOW_ANY_400",
        "overflow recovery catches any HTTP 400, not only a context-length error",
        lambda: mock.patch("harness.agent.ContextLengthExceededError", BadRequestError),
        ("DSH-OVERFLOW-ONLY",),
    ),
    Mutation(
        "DSH_PRESSURE_STRICT",
        "the DSH pressure check compacts only above the threshold (> instead of >=)",
        attr(f"{_DSH}.engine.DshEngine", "compact_if_needed", pressure_strictly_above),
        ("DSH-PRESSURE-EDGE",),
    ),
    Mutation(
        "OFFLOAD_80001",
        "the large-result offload threshold is 80,001 characters instead of 80,000",
        attr("harness.tools.LargeResultOffloader", "apply", offload_one_above),
        ("E5-OFFLOAD-EDGE",),
    ),
    Mutation(
        "TOOLS_OFF_STOPS_FLUSH",
        "disable_memory_tools also stops the after-call flush",
        attr(_RUNTIME, "after_call", tools_off_stops_flush),
        ("AS-TOOLS-OFF-FLUSH",),
    ),
    Mutation(
        "HOOKS_OFF_KEEPS_MAINTENANCE",
        "disable_memory_hooks stops the flush but not maintenance",
        attr(_RUNTIME, "after_call", hooks_off_keeps_maintenance),
        ("AS-FLUSH-TRIGGER",),
    ),
    Mutation(
        "HOOKS_AFTER_FAILED_CALL",
        "the flush and maintenance run after a failed call too (not only a successful one)",
        attr("harness.agent.Agent", "call", after_failed_call),
        ("AS-FLUSH-AFTER-SUCCESS",),
    ),
    Mutation(
        "ARCHIVE_AT_90_DAYS",
        "a daily file of exactly 90 days is archived too (older than 89 days)",
        attr("harness.memory.workspace.MemoryWorkspace", "archive_old", archive_at_limit),
        ("AS-ARCHIVE-90",),
    ),
    Mutation(
        "SOURCE_WITHOUT_LINES",
        "memory_search's Source lines name the file without a line number",
        attr("harness.memory.tools.MemoryTools", "memory_search", source_without_lines),
        ("AS-SOURCE-LINES",),
    ),
    Mutation(
        "PRESSURE_ONCE_PER_CALL",
        "the engine's pressure check runs before a call's first request only",
        attr("harness.agent.Agent", "_check", check_first_request_only),
        ("DSH-PRESTEP", "E5-TOOL-ROUND"),
    ),
    Mutation(
        "DSH_SUMMARY_NO_TOOLS",
        "the DSH summary request loses the routed request's tools",
        wrap(f"{_DSH}.summarizer", "build_summary_request", summary_without_tools),
        ("DSH-SUMMARY-PREFIX",),
    ),
    Mutation(
        "DSH_CHECKPOINT_DROPPED",
        "an earlier DSH checkpoint is left out of the next summary request (dropped, not merged)",
        wrap(f"{_DSH}.summarizer", "build_summary_request", drops_checkpoint),
        ("DSH-SUMMARY-MERGE",),
    ),
    Mutation(
        "DSH_SMALLER_STRICT",
        "a DSH summary exactly as large as what it replaces is accepted (> instead of >=)",
        wrap(f"{_DSH}.summarizer", "summarize_span", smaller_strictly),
        ("DSH-SMALLER-EDGE",),
    ),
    Mutation(
        "INJECTION_CAP_8001",
        "MEMORY.md's injection cap is 8,001 tokens instead of 8,000",
        wrap("harness.memory.injection", "cut_memory", cap_one_token_higher),
        ("AS-INJECT-EDGE",),
    ),
    Mutation(
        "DSH_RETAIN_STRICT",
        "the DSH verbatim tail stops only once it holds more than the retain budget (> not >=)",
        wrap(f"{_DSH}.selection", "select_compactable_range", retain_strictly),
        ("DSH-RETAIN-EDGE",),
    ),
    Mutation(
        "WATERMARK_BEFORE_WRITE",
        "consolidation advances the watermark before MEMORY.md is written",
        attr("harness.memory.consolidation.Consolidator", "_commit", watermark_before_write),
        ("E5-CONSOLIDATE-FAIL",),
    ),
)
