"""E5's rows for the memory pipeline's switches and timing as the AgentScope seed states them,
measured by :mod:`experiments.e5.measures.memory_switches`: the flush and maintenance only
after a successful call, ``disableMemoryTools``, ``flushTrigger`` and ``disableMemoryHooks``,
the 90-day archive, memory_search's Source lines, an invented fact carried into MEMORY.md and
the injection cap at its edge. Part of :class:`~experiments.e5.view.E5View`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "AfterSuccess",
    "Archive",
    "FlushSwitches",
    "InjectionEdge",
    "InventedCarried",
    "MemorySwitches",
    "SourceLines",
    "ToolsOff",
]


@dataclass(frozen=True)
class AfterSuccess:
    """One call whose model request fails, then one that succeeds, on the same agent."""

    failed_error: str
    """What the failed call raised (its type)."""
    failed_flushes: int
    """Flush requests after the failed call."""
    failed_maintenance: int
    """Maintenance runs after the failed call (claimed or not)."""
    ok_flushes: int
    ok_maintenance: int


@dataclass(frozen=True)
class ToolsOff:
    """A call of an agent built with ``disable_memory_tools=True``."""

    memory_tools_offered: tuple[str, ...]
    """The memory tools the agent's request offered (none is the seed's)."""
    memory_tools_when_on: tuple[str, ...]
    """The memory tools the same agent offers with the switch off."""
    flushes: int
    """Flush requests after the call."""
    flush_written: bool
    """Today's ledger gained a ``## Memory Flush`` section."""


@dataclass(frozen=True)
class FlushSwitches:
    """``flushTrigger`` throttled and never, and ``disableMemoryHooks``."""

    throttled_minutes: tuple[int, ...]
    """The minutes calls were made at, throttled to one flush per 10 minutes."""
    throttled_flushed_at: tuple[int, ...]
    """The minutes whose call was flushed."""
    never_after_call: int
    """After-call flushes over three calls with ``never`` (one compaction among them)."""
    never_before_compaction: int
    """Pre-compaction flushes in the same calls."""
    hooks_off_flushes: int
    """Flushes of any kind over the same three calls with ``disable_memory_hooks=True``."""
    hooks_off_maintenance: int
    """Maintenance runs over those calls."""


@dataclass(frozen=True)
class Archive:
    """Daily files of several ages when maintenance runs."""

    ages_days: tuple[int, ...]
    archived_ages: tuple[int, ...]
    """The ages whose file moved to ``memory/archive/``."""


@dataclass(frozen=True)
class SourceLines:
    """memory_search's result for a fact held in MEMORY.md and a daily file."""

    sources: tuple[str, ...]
    """Each hit's ``Source:`` citation (file and line as the result gives them)."""
    numbered: int
    """Citations that carry a line number."""
    pointing_right: int
    """Citations whose line number is the line of that file holding the hit's text."""


@dataclass(frozen=True)
class InventedCarried:
    """A flush that writes a date the conversation never held, then consolidation."""

    invented: str
    in_conversation: bool
    in_ledger: bool
    in_consolidation_request: bool
    in_memory: bool


@dataclass(frozen=True)
class InjectionEdge:
    """MEMORY.md exactly as long as the injection cap, and one character longer."""

    cap_chars: int
    """``max_context_tokens`` in the estimator's characters."""
    at_cap_whole: bool
    """A MEMORY.md of ``cap_chars`` reached the request whole."""
    over_cap_whole: bool
    over_cap_carried: bool
    """The longer one reached the request at all (cut, not dropped)."""


@dataclass(frozen=True)
class MemorySwitches:
    after_success: AfterSuccess
    tools_off: ToolsOff
    flush_switches: FlushSwitches
    archive: Archive
    source_lines: SourceLines
    invented: InventedCarried
    injection_edge: InjectionEdge
