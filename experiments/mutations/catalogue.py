"""The mutation catalogue: one behaviour of the harness broken on purpose, per entry, and
:data:`CATALOGUE`, which the suite hands to lab's engine (:data:`experiments.manifest.SUITE`).

Each :class:`Mutation` is a patch applied from the suite (``unittest.mock``-style, for the length
of a ``with`` block, in the process that runs it); nothing in ``harness/`` knows about them. A
mutation names the claims that must flip (``must_flip``: ``<claim id>`` or
``<claim id>@<model>``); :mod:`lab.mutations.matrix` runs every experiment under it with
the recorded answers served in order (:mod:`lab.recorder.order_replay`) and says which
claims flipped. ``tests/lab/test_mutations.py`` fails when a named claim did not flip,
or when a
mutation flips nothing.
"""

from __future__ import annotations

from unittest import mock

from experiments.mutations.catalogue_judges import ANSWER_MUTATIONS, JUDGE_MUTATIONS
from experiments.mutations.catalogue_ours import OUR_MUTATIONS
from experiments.mutations.catalogue_safeguards import SAFEGUARD_MUTATIONS
from experiments.mutations.catalogue_seed_claims import SEED_CLAIM_MUTATIONS
from experiments.mutations.guards import GUARDS, UNCOVERED
from experiments.mutations.patches import (
    cutoff_ignores_pairing,
    dsh_skips_head,
    e3_trigger_six,
    empty_summary,
    flush_after_maintenance,
    gate_off_summary,
    keep_one_more,
    nested_summary,
    offload_at_limit,
    prune_at_limit,
    ratio_property,
    save_memory_only,
    summary_without_usage,
    trigger_strictly_above,
    zero_trigger_fires,
)
from lab import Catalogue, Mutation, attr, many, nothing, wrap

__all__ = ["CATALOGUE", "MUTATIONS", "Mutation", "by_name"]


# --- the catalogue -------------------------------------------------------------------------

_AS = "harness.compaction.agentscope"
MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "CUTOFF_IGNORES_PAIRING",
        "the safe cutoff ignores tool pairing (the naive cutoff is used as is)",
        wrap(f"{_AS}.cutoff", "find_safe_cutoff", cutoff_ignores_pairing),
        ("X-THRASH-PAIRS",),
    ),
    Mutation(
        "E3_TRIGGER_6",
        "E3's message trigger is 6 instead of 5",
        e3_trigger_six,
        ("E3-FIRST", "E3-EVERY", "E3-VISIBLE", "E3-FINAL-MSGS"),
    ),
    Mutation(
        "TRIGGER_STRICT",
        "the count and token triggers fire on > instead of >=",
        attr(f"{_AS}.compactor.Compactor", "trigger", trigger_strictly_above),
        (
            "E1-TRIGGER-EDGE",
            "E5-CADENCE-5-2",
            "E5-CADENCE-13-2",
            "X-THRASH-REFILL",
            "E3-FIRST",
            "E3-EVERY",
        ),
    ),
    Mutation(
        "ZERO_TRIGGER_FIRES",
        "triggerMessages=0 fires on every request instead of turning the count trigger off",
        attr(f"{_AS}.compactor.Compactor", "trigger", zero_trigger_fires),
        ("E1-TRIGGER-OFF",),
    ),
    Mutation(
        "EMPTY_SUMMARY",
        "the summary text is empty (whatever the model answered)",
        wrap(f"{_AS}.summary", "_strip_prefix", empty_summary),
        ("E1-AFTER", "E3-SUMMARY-MSG"),
    ),
    Mutation(
        "NO_WATERMARK",
        "consolidation never writes the watermark",
        attr("harness.memory.workspace.MemoryWorkspace", "write_watermark", nothing),
        ("E2-S2-WATERMARK", "E5-CONSOLIDATE-FAIL"),
    ),
    Mutation(
        "DSH_SKIPS_HEAD",
        "the DSH replace skips the head node (replaces positions 1..end)",
        wrap("harness.compaction.dsh.selection", "select_compactable_range", dsh_skips_head),
        (
            "DSH-OVERFLOW",
            "DSH-RANGE@qwen2.5-coder-1.5b-instruct-q4_k_m",
            "DSH-CACHE",
            "DSH-REPLAY@qwen2.5-coder-1.5b-instruct-q4_k_m",
        ),
    ),
    Mutation(
        "NO_REPLY_IGNORED",
        "a flush answering NO_REPLY is written to the ledger",
        lambda: mock.patch("harness.memory.flush.NO_REPLY", "\x00never"),
        ("AS-FLUSH-NO-REPLY",),
    ),
    Mutation(
        "INJECTION_UNCAPPED",
        "MEMORY.md is injected whole, the injection cap ignored",
        wrap("harness.memory.injection", "cut_memory", lambda _o: lambda text, cap: text),
        ("AS-INJECT",),
    ),
    Mutation(
        "DSH_PRESSURE_0_9",
        "the DSH pressure threshold is 0.9 of the window instead of 0.8",
        ratio_property("threshold", 0.9),
        ("DSH-PRESSURE",),
    ),
    Mutation(
        "DSH_RETAIN_0_2",
        "the DSH retain budget is 0.2 of the window instead of 0.16",
        ratio_property("retain", 0.2),
        ("DSH-PRESSURE",),
    ),
    Mutation(
        "SUMMARY_NESTED",
        "an old summary is nested inside the new one instead of merged into it",
        attr(f"{_AS}.compactor.Compactor", "build", nested_summary),
        ("X-THRASH-TOKENS", "E3-SUMMARY-MERGED"),
    ),
    Mutation(
        "PRUNE_OFF_BY_ONE",
        "a tool result of exactly the prune limit is pruned (> became >=)",
        wrap(f"{_AS}.prune", "prune_tool_results", prune_at_limit),
        ("AS-PRUNE-DEFAULTS",),
    ),
    Mutation(
        "OFFLOAD_OFF_BY_ONE",
        "a tool result of exactly the offload threshold is offloaded (> became >=)",
        attr("harness.tools.LargeResultOffloader", "apply", offload_at_limit),
        ("E5-OFFLOAD-EDGE",),
    ),
    Mutation(
        "INTERRUPTED_LEFT_OPEN",
        "a tool call a crash interrupted is left open (no synthetic result)",
        wrap("harness.replies", "pending_calls", lambda _o: lambda messages: []),
        ("E5-INTERRUPTED-CLOSED",),
    ),
    Mutation(
        "LOCK_UNCHECKED",
        "the compaction lock (an unclosed compaction/start) is not checked",
        wrap("harness.store.eventlog.bracket", "refuse_if_busy", nothing),
        ("DSH-LOCK", "DSH-CLOSE-FAILED"),
    ),
    Mutation(
        "GATE_OFF",
        "the identifier-survival gate is switched off whatever the config says",
        lambda: many(
            wrap("harness.compaction.guards.gate", "gated_summary", gate_off_summary),
            wrap("harness.compaction.dsh.summarizer", "gated_checkpoint", gate_off_summary),
        ),
        ("X-GATE-E4-AS-ON", "X-GATE-E4-DSH-ON@qwen2.5-coder-1.5b-instruct-q4_k_m"),
    ),
    Mutation(
        "FLUSH_AFTER_MAINTENANCE",
        "the flush runs after maintenance when the order says flush first",
        attr("harness.memory.background.BackgroundTasks", "after_call", flush_after_maintenance),
        ("E5-ORDER-FLUSH-FIRST",),
    ),
    Mutation(
        "KEEP_ONE_MORE",
        "the compactor keeps one message more than keep_messages",
        wrap(f"{_AS}.cutoff", "find_safe_cutoff", keep_one_more),
        (
            "E1-NAIVE",
            "E1-REASON",
            "E1-DEFAULT-REMOVES",
            "E3-EVERY",
            "E3-AT-COMPACTION",
            "E5-CADENCE-6-2",
        ),
    ),
    Mutation(
        "FLUSH_SKIPPED",
        "the pre-compaction memory flush never runs",
        attr("harness.memory.runtime.MemoryRuntime", "flush_prefix", nothing),
        ("AS-COMPACT-HOOKS",),
    ),
    Mutation(
        "THRASH_GUARD_OFF",
        "the thrash guard lets every compaction run",
        wrap("harness.compaction.guards.thrash", "allows", lambda _o: lambda *args: True),
        ("X-THRASH-GUARDED", "X-THRASH-REFILL", "X-THRASH-SKIPS"),
    ),
    Mutation(
        "CONSOLIDATION_SKIPPED",
        "maintenance never consolidates (the schedule never claims)",
        attr(
            "harness.memory.consolidation.MaintenanceSchedule",
            "try_claim",
            lambda _o: lambda self: False,
        ),
        (
            "AS-CONSOLIDATE-CADENCE",
            "E2-S1-SKIP-LOG",
            "E5-ORDER-MAINTENANCE-FIRST",
            "AS-CONSOLIDATE-CARRIES",
        ),
    ),
    Mutation(
        "PAIRING_CHECK_OFF",
        "the DSH pairing back-off is off (a cut may separate a call from its result)",
        wrap(
            "harness.compaction.dsh.selection",
            "cut_balance",
            lambda _o: lambda nodes: [True] * (len(nodes) + 1),
        ),
        ("DSH-RANGE-BACKOFF",),
    ),
)


MUTATIONS += (
    Mutation(
        "MEMORY_SAVE_NO_LEDGER",
        "memory_save writes MEMORY.md but not today's ledger",
        attr("harness.memory.tools.MemoryTools", "memory_save", save_memory_only),
        ("AS-MEMORY-SAVE",),
    ),
    Mutation(
        "DSH_SUMMARY_NO_USAGE",
        "the DSH compaction/summary event leaves out the summary call's usage",
        attr("harness.compaction.dsh.engine.DshEngine", "_summary_data", summary_without_usage),
        ("DSH-SUMMARY-EVENT@qwen2.5-coder-1.5b-instruct-q4_k_m",),
    ),
)


MUTATIONS += SAFEGUARD_MUTATIONS
MUTATIONS += OUR_MUTATIONS
MUTATIONS += SEED_CLAIM_MUTATIONS
MUTATIONS += JUDGE_MUTATIONS + ANSWER_MUTATIONS


CATALOGUE = Catalogue(MUTATIONS, GUARDS, UNCOVERED)
"""The suite's mutations with its guards, as lab's engine is handed them
(:func:`lab.mutations.mutation.suite_catalogue`)."""


def by_name(name: str) -> Mutation:
    """The mutation called ``name``; KeyError naming the known ones otherwise."""
    return CATALOGUE.by_name(name)
