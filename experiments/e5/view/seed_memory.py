"""E5's seed rows, as :mod:`experiments.e5.measures.seed_memory` measures them: AgentScope mechanics
the seed states (compaction and prune defaults, offload, injection, NO_REPLY, memory_save, the
consolidation cadence, cap and freshness). Part of :class:`~experiments.e5.view.E5View`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ConsolidationCap",
    "Defaults",
    "Freshness",
    "Injection",
    "MaintenanceCadence",
    "MemorySave",
    "NoReply",
    "OffloadPath",
    "PruneRun",
    "SeedMemory",
]


@dataclass(frozen=True)
class Defaults:
    """The default :class:`~harness.compaction.agentscope.CompactionConfig`'s numbers."""

    trigger_messages: int
    keep_messages: int
    trigger_tokens: int | None
    keep_tokens: int | str
    """A number of tokens, or ``dynamic``."""
    reserved: int
    default_reserve: int


@dataclass(frozen=True)
class PruneRun:
    """The default prune over 12 tool results of 8,000 estimated tokens each."""

    protect_tokens: int
    minimum_tokens: int
    max_output_chars: int
    messages_before: int
    messages_after: int
    pruned: int
    newest_kept_whole: bool
    pruned_chars: int
    result_tokens: int
    preview_chars: tuple[int, ...] = ()
    """The head-and-tail sizes of the pruned results, the marker taken out (2,000 each)."""


@dataclass(frozen=True)
class OffloadPath:
    """Where a large tool result is offloaded, and the tools never offloaded."""

    path: str
    excluded: tuple[str, ...]


@dataclass(frozen=True)
class Injection:
    """Where a large MEMORY.md reaches the first request, and how much of it."""

    memory_tokens: int
    roles: tuple[str, ...]
    """The roles of the messages that carry it."""
    in_system: bool
    injected_chars: int
    cap_chars: int
    cap_tokens: int


@dataclass(frozen=True)
class NoReply:
    """A flush whose model answers NO_REPLY."""

    entry: bool
    daily_files: int


@dataclass(frozen=True)
class MemorySave:
    """Where memory_save wrote."""

    memory_has_it: bool
    daily_save_section: bool


@dataclass(frozen=True)
class MaintenanceCadence:
    """The minutes at which the maintenance schedule granted a claim."""

    granted_minutes: tuple[int, ...]


@dataclass(frozen=True)
class ConsolidationCap:
    """The consolidation's output cap."""

    default_max_tokens: int
    request_max_tokens: int | None
    prompt_says: bool


@dataclass(frozen=True)
class Freshness:
    """Which entries a second consolidation sends after a third entry in the same day."""

    files: int
    second_run_sends: tuple[str, ...]


@dataclass(frozen=True)
class SeedMemory:
    """The AgentScope mechanics the seed states, measured."""

    defaults: Defaults
    prune: PruneRun
    offload: OffloadPath
    injection: Injection
    no_reply: NoReply
    memory_save: MemorySave
    cadence: MaintenanceCadence
    consolidation_cap: ConsolidationCap
    freshness: Freshness
