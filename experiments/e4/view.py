"""E4's view: one recorded conversation compacted once by each engine.

:mod:`experiments.e4` builds an :class:`E4View` and writes it as ``E4.json``; its claims
(:mod:`experiments.e4.claims`) and its page (:mod:`experiments.e4.page`) read it.
"""

from __future__ import annotations

from dataclasses import dataclass

from lab import RecordedView

__all__ = [
    "ENGINE_TITLES",
    "ConversationRow",
    "E4View",
    "EngineRun",
    "LogEventRow",
    "ReplacedRange",
    "SummaryEvent",
    "SurfaceOp",
]


@dataclass(frozen=True)
class SurfaceOp:
    """What a log event did to the surface: ``append``, or a replace of the nodes from event
    seq start through event seq end (DeepSeek-Harness names a span by seqs)."""

    op: str
    start: int | None = None
    """The event seq of the first node replaced (inclusive); None for an append."""
    end: int | None = None
    """The event seq of the last node replaced (inclusive); None for an append."""

    def __post_init__(self) -> None:
        if (self.start is None) != (self.end is None):
            raise ValueError("a surface op holds a start without an end, or an end without a start")

    @property
    def is_replace(self) -> bool:
        """Whether the op replaced a span of the surface."""
        return self.start is not None and self.end is not None


@dataclass(frozen=True)
class LogEventRow:
    """One event a compaction appended to the log."""

    seq: int
    type: str
    surface_op: SurfaceOp | None
    sources: tuple[int, ...] | None
    """The event's source seqs, as recorded; None when the engine's events do not record them."""
    positions: tuple[int, int] | None = None
    """Where a replace's start and end seqs sat on the surface before the compaction."""


@dataclass(frozen=True)
class ReplacedRange:
    """The DSH engine's replaced range: surface positions start..end, the last ``kept`` kept."""

    start: int
    end: int
    kept: int
    sources_cover_shadowed: bool


@dataclass(frozen=True)
class SummaryEvent:
    """What DSH's compaction/summary event recorded: its field names, provider and model."""

    fields: tuple[str, ...]
    provider: str | None
    model: str | None
    cut_at_max_tokens: bool = False
    """The summary call's completion reached the event's ``max_tokens``: a cut-off summary,
    which the seed's engine refuses (截断即失败)."""


ENGINE_TITLES = {"agentscope": "AgentScope", "dsh": "DSH"}
"""E4's engines as the reports name them; another engine keeps its recorded name."""


@dataclass(frozen=True)
class EngineRun:
    """One engine's compaction of E4's conversation."""

    engine: str
    """``agentscope`` or ``dsh``, as recorded."""
    messages_before: int
    messages_after: int
    estimated_tokens_before: int
    """AgentScope's estimator: ``ceil(chars / 2.5)`` plus per-message overheads."""
    estimated_tokens_after: int
    dsh_meter_before: int
    """dsh's meter: ``ceil(chars / 4) + 4`` per block plus 4 per message."""
    dsh_meter_after: int
    summary: str
    summary_chars: int
    summary_request_messages: int
    prefix_reuse: float
    """The share (0–1) of the summary request's bytes that repeat the previous request's start."""
    summary_prompt_tokens: int | None
    """What llama-server reported for the summary call; None when it reported no usage."""
    summary_cached_tokens: int | None
    facts_kept: tuple[str, ...]
    """The names of the planted facts found verbatim in the summary."""
    replay_equals_live: bool | None
    pairing_valid: bool | None
    events: tuple[LogEventRow, ...]
    range: ReplacedRange | None = None
    """DSH's replaced range; None for AgentScope, or when DSH did not compact."""
    error: str | None = None
    """Why DSH did not compact; None when it did (and always for AgentScope)."""
    replay_as_recorded: bool | None = None
    """Whether the log replayed from zero is what the recording and the conversation say it
    must be, not what the engine computed: a summary message holding the summary the model
    answered (as recorded), then the conversation's last ``KEEP`` messages as they were before
    the compaction. None when there was no log."""
    summary_event: SummaryEvent | None = None
    """DSH's compaction/summary event; None for AgentScope, or when DSH did not compact."""
    surface_summary: str | None = None
    """The message the conversation goes on with in place of the compacted span (AgentScope's
    summary or DSH's checkpoint), as it stands on the surface; None when there is none."""

    def __post_init__(self) -> None:
        if not 0 <= self.prefix_reuse <= 1:
            raise ValueError(f"'prefix_reuse' is {self.prefix_reuse}, not a share between 0 and 1")

    @property
    def title(self) -> str:
        """The engine's name in the reports: ``AgentScope``, ``DSH``, else as recorded."""
        return ENGINE_TITLES.get(self.engine, self.engine)

    @property
    def cached_share(self) -> float | None:
        """Cached over prompt tokens of the summary call; None when either was not reported."""
        if not self.summary_prompt_tokens or self.summary_cached_tokens is None:
            return None
        return self.summary_cached_tokens / self.summary_prompt_tokens

    @property
    def replaced(self) -> tuple[int, int] | None:
        """The surface positions (inclusive) its replace event covered; None without one."""
        for event in self.events:
            op = event.surface_op
            if op is not None and op.is_replace and event.positions is not None:
                return event.positions
        return None


@dataclass(frozen=True)
class ConversationRow:
    """One message of E4's conversation before compaction."""

    index: int
    role: str
    text: str


@dataclass(frozen=True)
class E4View(RecordedView):
    """E4: one recorded conversation compacted once by each engine."""

    turns: tuple[str, ...]
    facts: dict[str, str]
    """The planted facts: name → value, in planting order."""
    keep: int
    conversation: tuple[ConversationRow, ...]
    engines: tuple[EngineRun, ...]
    """AgentScope's run, then DSH's; engine names are distinct."""

    def __post_init__(self) -> None:
        if not self.engines:
            raise ValueError("'engines' holds no engine")
        if len({e.engine for e in self.engines}) != len(self.engines):
            raise ValueError("'engines' holds an engine twice")

    def engine(self, name: str) -> EngineRun | None:
        """The run of the engine called ``name``; None when it is absent."""
        return next((e for e in self.engines if e.engine == name), None)

    def run(self, name: str) -> EngineRun:
        """The run of the engine called ``name``; KeyError when it is absent."""
        found = self.engine(name)
        if found is None:
            raise KeyError(f"E4 has no run of the engine {name!r}")
        return found
