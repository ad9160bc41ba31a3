"""E5's rows for where and how the engines' checks and recovery fire, as
:mod:`experiments.e5.measures.dsh_steps` measures them: the DSH pressure check before every
request of a call, the pressure threshold and the retain budget at their edges, the summary
request's prefix with tools, an earlier checkpoint merged, the "summary must be smaller" check at
its edge, and which provider errors enter overflow recovery. Part of
:class:`~experiments.e5.view.E5View`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DshSteps",
    "ErrorOutcome",
    "MergedCheckpoint",
    "PreStep",
    "PressureEdge",
    "RetainEdge",
    "SmallerEdge",
    "SummaryPrefix",
]


@dataclass(frozen=True)
class PreStep:
    """One call of a DSH agent whose tool result crosses the threshold between requests."""

    requests: int
    """Agent requests in the call."""
    checks: int
    """Pressure checks the engine made in the call."""
    compacted_before: tuple[int, ...]
    """For each compaction, the request (1-based) it ran before."""
    checkpoint_in_next: bool
    """The request after the compaction carried the checkpoint."""


@dataclass(frozen=True)
class SummaryPrefix:
    """That call's summary request beside the agent request it compacted for."""

    tools: int
    """Tools the agent request offered."""
    same_tools: bool
    same_head: bool
    """The summary request opens with the agent request's system and reference messages."""
    shadowed_as_sent: bool
    """The messages between head and directive are the surface's oldest, as requests carry
    them."""
    directive_last: bool
    """The directive is the final message, a user message."""


@dataclass(frozen=True)
class PressureEdge:
    """The pressure check with the measured request exactly at the threshold, and one below."""

    tokens: int
    """What the engine read (tokens of header + surface)."""
    at_window: int
    """A window whose floor(window × 0.8) is ``tokens``."""
    at_events: int
    below_window: int
    """A window whose threshold is ``tokens + 1``."""
    below_events: int


@dataclass(frozen=True)
class RetainEdge:
    """The range selection's tail over nodes of equal price, with a retain budget exactly a
    whole number of nodes and one token more."""

    node_tokens: int
    budget: int
    kept_at_budget: int
    """Nodes kept verbatim with ``budget``."""
    kept_one_over: int
    """Nodes kept verbatim with ``budget + 1``."""


@dataclass(frozen=True)
class MergedCheckpoint:
    """Two manual DSH compactions, the second over the first's checkpoint."""

    carried: bool
    """The second summary request carried the first checkpoint's body."""
    directive_merges: bool
    """The directive asks to merge an earlier compacted block, not copy it."""
    checkpoints_after: int
    """Checkpoint messages on the surface after the second compaction."""
    blocks_in_last: int
    """``<compacted-summary>`` blocks in the surviving checkpoint (one: not nested)."""


@dataclass(frozen=True)
class SmallerEdge:
    """The "summary must be smaller" check with the framed summary exactly as large as what
    it replaces, and one token smaller."""

    framed_tokens: int
    equal_refused: str
    """The error at equality ("" when accepted)."""
    one_less_accepted: bool


@dataclass(frozen=True)
class ErrorOutcome:
    """One provider error met by an agent with compaction on."""

    engine: str
    error: str
    """The status and kind, e.g. ``400 bad request``."""
    reached_caller: bool
    """The same error object reached the caller."""
    summaries: int
    """Summary requests (compactions) it set off."""
    agent_requests: int
    """Agent requests (2: one retry)."""


@dataclass(frozen=True)
class DshSteps:
    pre_step: PreStep
    prefix: SummaryPrefix
    pressure_edge: PressureEdge
    retain_edge: RetainEdge
    merged: MergedCheckpoint
    smaller_edge: SmallerEdge
    errors: tuple[ErrorOutcome, ...]
