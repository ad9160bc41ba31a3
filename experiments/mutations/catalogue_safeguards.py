"""The mutations of the harness's safeguards (pre-compaction hooks, the overflow retry,
DeepSeek-Harness's commit and checks, E1's back-off, the memory pipeline), for the seed rows
that rest on them; :mod:`experiments.mutations.catalogue` appends them to its ``MUTATIONS``."""

from __future__ import annotations

from unittest import mock

from experiments.mutations.patches_safeguards import (
    backoff_forward,
    consolidation_marks_daily,
    disable_ignored,
    flush_blocks,
    flush_writes_memory,
    injection_per_request,
    interrupt_as_commit,
    no_overflow_retry,
    prune_not_progress,
    read_file_offloaded,
    replace_before_summary,
    size_check_always,
    size_check_off,
    sources_shadowed_only,
    span_check_only,
    stale_pricing_accepted,
    truncated_accepted,
    workspace_at_root,
)
from lab import Mutation, attr, nothing, wrap

__all__ = ["SAFEGUARD_MUTATIONS"]

_AS = "harness.compaction.agentscope"
_DSH = "harness.compaction.dsh"
_15B = "@qwen2.5-coder-1.5b-instruct-q4_k_m"
SAFEGUARD_MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "FLUSH_BLOCKS",
        "a failing pre-compaction flush stops the compaction (no longer best effort)",
        wrap("harness.compaction.agentscope.engine", "_best_effort", flush_blocks),
        ("AS-FLUSH-BEST-EFFORT",),
    ),
    Mutation(
        "DISABLE_KEEPS_ENGINE",
        "disable_compaction=True still builds the engine (and with it the overflow retry)",
        attr("harness.harness_agent.HarnessAgent", "_engine", disable_ignored),
        ("AS-DISABLE-NO-RETRY",),
    ),
    Mutation(
        "NO_OVERFLOW_RETRY",
        "a context-length error is never recovered: no forced compaction, no retry",
        attr("harness.agent.Agent", "_recover_from_overflow", no_overflow_retry),
        ("E5-OVERFLOW", "DSH-RETRY-RESET"),
    ),
    Mutation(
        "RETRY_COUNT_PER_TURN",
        "the DSH overflow-retry count is not reset when an assistant message lands",
        attr(
            "harness.compaction.dsh.engine.DshEngine",
            "overflow_retries_reset_on_reply",
            lambda _o: False,
        ),
        ("DSH-RETRY-RESET",),
    ),
    Mutation(
        "REPLACE_BEFORE_SUMMARY",
        "the DSH commit appends the replace message before the summary event",
        attr(f"{_DSH}.engine.DshEngine", "_transaction", replace_before_summary),
        ("DSH-BACK-TO-BACK", "DSH-SOURCE-SEQS", "DSH-EVENTS" + _15B),
    ),
    Mutation(
        "SOURCES_SHADOWED_ONLY",
        "the replace message's sourceEventSeqs leave out the start and summary seqs",
        attr("harness.store.eventlog.log.EventLog", "replace_seqs", sources_shadowed_only),
        ("DSH-SOURCE-SEQS",),
    ),
    Mutation(
        "STALE_PRICING_ACCEPTED",
        "a priced node missing from the measurement is priced 0 instead of refused",
        wrap(f"{_DSH}.selection", "select_compactable_range", stale_pricing_accepted),
        ("DSH-STALE-PRICING",),
    ),
    Mutation(
        "PRUNE_NOT_PROGRESS",
        "overflow recovery raises when its summary stage fails, even after a durable prune",
        attr(f"{_DSH}.engine.DshEngine", "recover_overflow", prune_not_progress),
        ("DSH-PRUNE-PROGRESS",),
    ),
    Mutation(
        "DSH_SIZE_CHECK_OFF",
        "a DSH summary not smaller than what it replaces is accepted",
        wrap(f"{_DSH}.summarizer", "summarize_span", size_check_off),
        ("DSH-SMALLER",),
    ),
    Mutation(
        "DSH_CUT_SUMMARY_ACCEPTED",
        "a DSH summary cut off at max_tokens is accepted as complete",
        wrap(f"{_DSH}.summarizer", "summarize_span", truncated_accepted),
        ("DSH-TRUNCATED",),
    ),
    Mutation(
        "MANUAL_INTERRUPT_AS_COMMIT",
        "an interrupted manual compaction is reported as a commit failure, not cancelled",
        wrap("harness.compaction.manual", "_as_manual_error", interrupt_as_commit),
        ("DSH-MANUAL-ERRORS",),
    ),
    Mutation(
        "AS_SIZE_CHECK_ALWAYS",
        "the AgentScope engine refuses a summary not smaller than its prefix, config or not",
        attr(
            "harness.compaction.agentscope.engine.AgentScopeEngine", "_too_large", size_check_always
        ),
        ("AS-NO-SIZE-CHECK",),
    ),
    Mutation(
        "SPAN_CHECK_ONLY",
        "automatic DSH compaction checks only the selected span, not the whole surface",
        attr(f"{_DSH}.engine.DshEngine", "_check_stable", span_check_only),
        ("DSH-STABILITY-CHECK",),
    ),
    Mutation(
        "WORKSPACE_AT_ROOT",
        "a user's memory files go to the workspace root, not workspace/<userId>/",
        attr("harness.memory.workspace.MemoryWorkspace", "__init__", workspace_at_root),
        ("AS-WORKSPACE-USER",),
    ),
    Mutation(
        "BACKOFF_TOWARD_TAIL",
        "a cutoff that splits a tool pair moves toward the tail (past the results), not the head",
        wrap(f"{_AS}.cutoff", "find_safe_cutoff", backoff_forward),
        ("E1-CUTOFF", "E1-KEEP", "E1-LOG-LINE"),
    ),
    Mutation(
        "READ_FILE_OFFLOADED",
        "read_file's own result is offloaded again (it left the excluded tools)",
        attr("harness.tools.LargeResultOffloader", "apply", read_file_offloaded),
        ("E5-OFFLOAD",),
    ),
    Mutation(
        "CONSOLIDATION_MARKS_DAILY",
        "a written consolidation appends a marker to the daily ledgers it read",
        attr("harness.memory.consolidation.Consolidator", "consolidate", consolidation_marks_daily),
        ("E2-S2-DAILY",),
    ),
    Mutation(
        "FLUSH_WRITES_MEMORY",
        "the memory flush writes its facts to MEMORY.md as well as the daily ledger",
        attr("harness.memory.flush.MemoryFlusher", "_flush_chunk", flush_writes_memory),
        ("E2-S1-NO-MEMORY",),
    ),
    Mutation(
        "AFTER_CALL_FLUSH_OFF",
        "the memory flush after each call never runs (the pre-compaction one still does)",
        attr("harness.memory.flush.MemoryFlusher", "after_call", nothing),
        (
            "E2-EXTRA-CALLS",
            "E2-S1-FLUSH" + _15B,  # the 0.5B's flush copies the instruction: it differs already
            "E2-S3-RECALL@qwen2.5-coder-0.5b-instruct-q4_k_m",
        ),
    ),
    Mutation(
        "INJECTION_PER_REQUEST",
        "MEMORY.md is read again before every request of a call, not once at its start",
        attr("harness.agent.Agent", "_request", injection_per_request),
        ("E2-INJECT-PREVIOUS" + _15B,),
    ),
    Mutation(
        "TRANSCRIPT_SKIPPED",
        "the session transcript (the session log) records no message",
        attr("harness.store.statefile.Transcript", "append_messages", nothing),
        ("E3-LOG-KEEPS",),
    ),
    Mutation(
        "FALLBACK_128K",
        "the token trigger of an unknown window falls back to 128,000 instead of 160,000",
        lambda: mock.patch(f"{_AS}.config.FALLBACK_TRIGGER_TOKENS", 128_000),
        ("E5-FALLBACK-160K",),
    ),
)
