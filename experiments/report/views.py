"""One experiment's measurements as typed records, read from its ``<ID>.json``.

Each ``*_view`` function checks the JSON's shape as it reads and raises :class:`ShapeError`
when a key is missing or holds another type; :func:`read_view` turns that into "render this
experiment generically" instead of a crash. Nothing here renders.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from experiments.report.tables import ExperimentDoc

__all__ = [
    "ENGINE_TITLES",
    "ConversationRow",
    "E1View",
    "E2View",
    "E3View",
    "E4View",
    "E5View",
    "EngineRun",
    "Failures",
    "FallbackProfile",
    "FileState",
    "FlushOutcome",
    "GridCell",
    "LargeResult",
    "LogEventRow",
    "MessageRow",
    "ReplacedRange",
    "RoundRow",
    "ShapeError",
    "StepRow",
    "SurfaceOp",
    "ToolCompaction",
    "ToolHeavy",
    "View",
    "e1_view",
    "e2_view",
    "e3_view",
    "e4_view",
    "e5_view",
    "read_view",
]


class ShapeError(ValueError):
    """An experiment's JSON lacks a key or holds a value of another type than expected."""


def _get(data: Any, key: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
    if not isinstance(data, Mapping):
        raise ShapeError(f"expected an object holding {key!r}, found {type(data).__name__}")
    if key not in data or (optional and data[key] is None):
        if optional:
            return None
        raise ShapeError(f"missing key {key!r}")
    value = data[key]
    # bool is an int to Python, but a count of True messages is a shape error.
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise ShapeError(f"{key!r} should not be a boolean")
    if not isinstance(value, kind):
        raise ShapeError(f"{key!r} holds a {type(value).__name__}")
    return value


def _objects(data: Any, key: str) -> list[Mapping[str, Any]]:
    items = _get(data, key, list)
    if not all(isinstance(item, Mapping) for item in items):
        raise ShapeError(f"{key!r} should hold objects only")
    return items


@dataclass(frozen=True)
class MessageRow:
    """One message of E1's history."""

    index: int
    role: str
    kind: str
    """``summary``, ``user``, ``assistant``, ``tool_use`` or ``tool_result``."""
    estimated_tokens: int
    text: str
    """The message text, or its tool calls as ``name(arguments)`` when it has no text."""


@dataclass(frozen=True)
class E1View:
    """E1: the history before and after one compaction, and where the cut fell."""

    before: tuple[MessageRow, ...]
    after: tuple[MessageRow, ...]
    naive_cutoff: int
    """``len − keep``: where a cut that ignores tool pairs would fall."""
    cutoff: int
    """The safe cutoff the compactor used."""
    keeping: int
    reason: str
    log_lines: tuple[str, ...]
    estimated_tokens: int | None
    after_estimated_tokens: int | None

    @property
    def summary(self) -> str:
        """The summary message's text after compaction, or an empty string."""
        return next((m.text for m in self.after if m.kind == "summary"), "")


def _tool_calls_text(message: Mapping[str, Any]) -> str:
    calls = _get(message, "tool_calls", list, optional=True) or []
    parts = []
    for call in calls:
        function = _get(call, "function", Mapping)
        parts.append(f"{_get(function, 'name', str)}({_get(function, 'arguments', str)})")
    return "; ".join(parts)


def _message(message: Mapping[str, Any]) -> MessageRow:
    text = _get(message, "text", str, optional=True) or _tool_calls_text(message)
    return MessageRow(
        _get(message, "index", int),
        _get(message, "role", str),
        _get(message, "kind", str),
        _get(message, "estimated_tokens", int),
        text,
    )


def e1_view(data: Mapping[str, Any]) -> E1View:
    """Read E1's JSON (see ``experiments/e1.py``)."""
    return E1View(
        tuple(_message(m) for m in _objects(data, "before")),
        tuple(_message(m) for m in _objects(data, "after")),
        _get(data, "naive_cutoff", int),
        _get(data, "cutoff", int),
        _get(data, "keeping", int),
        _get(data, "reason", str),
        tuple(str(line) for line in _get(data, "log_lines", list)),
        _get(data, "estimated_tokens", int, optional=True),
        _get(data, "after_estimated_tokens", int, optional=True),
    )


@dataclass(frozen=True)
class RoundRow:
    """One round of E3: the user's message, the context around the call, any compaction."""

    round: int
    user: str
    visible_before: int
    """Messages in the history when the call started."""
    visible_after: int
    """Messages in the history when the call ended."""
    compacted: bool
    total_messages: int | None
    """Messages when compaction triggered; None in rounds without compaction."""
    cutoff: int | None
    keeping: int | None
    messages_after: int | None
    summary_chars: int | None
    answer: str
    summary: str
    """The summary this round's compaction wrote, or an empty string."""


@dataclass(frozen=True)
class E3View:
    """E3: five rounds of a real agent with trigger 5 / keep 2."""

    rounds: tuple[RoundRow, ...]
    final_summary: str

    @property
    def compacted_rounds(self) -> tuple[int, ...]:
        """The rounds in which compaction fired."""
        return tuple(r.round for r in self.rounds if r.compacted)


def _round(record: Mapping[str, Any]) -> RoundRow:
    event = _get(record, "compaction", Mapping, optional=True)
    compaction = (
        [None] * 5
        if event is None
        else [
            _get(event, key, int)
            for key in ("total_messages", "cutoff", "keeping", "messages_after", "summary_chars")
        ]
    )
    return RoundRow(
        _get(record, "round", int),
        _get(record, "user", str),
        _get(record, "visible_before", int),
        _get(record, "visible_after", int),
        event is not None,
        *compaction,
        _get(record, "answer", str),
        "" if event is None else _get(event, "summary", str),
    )


def e3_view(data: Mapping[str, Any]) -> E3View:
    """Read E3's JSON (see ``experiments/e3.py``, ``measure`` and ``_round_record``)."""
    final = _get(data, "final_summary_message", Mapping, optional=True)
    rounds = sorted((_round(r) for r in _objects(data, "rounds")), key=lambda r: r.round)
    return E3View(tuple(rounds), "" if final is None else _get(final, "text", str))


@dataclass(frozen=True)
class FileState:
    """One memory file after a step."""

    path: str
    exists: bool
    size: int
    """Bytes; 0 when the file does not exist."""


@dataclass(frozen=True)
class StepRow:
    """One step of E2."""

    step: int
    title: str
    tool_calls: tuple[str, ...]
    answer: str
    files: tuple[FileState, ...]
    """Sorted by path."""
    watermark: str | None


@dataclass(frozen=True)
class E2View:
    """E2: the memory files step by step."""

    steps: tuple[StepRow, ...]

    @property
    def paths(self) -> tuple[str, ...]:
        """Every file seen in any step, sorted."""
        return tuple(sorted({f.path for s in self.steps for f in s.files}))


def _file(path: str, state: Any) -> FileState:
    exists = _get(state, "exists", bool)
    return FileState(path, exists, _get(state, "size", int))


def _step(record: Mapping[str, Any]) -> StepRow:
    files = _get(record, "files", Mapping)
    return StepRow(
        _get(record, "step", int),
        _get(record, "title", str),
        tuple(str(c) for c in _get(record, "tool_calls", list)),
        _get(record, "answer", str),
        tuple(_file(str(p), files[p]) for p in sorted(files, key=str)),
        _get(record, "watermark", str, optional=True),
    )


def e2_view(data: Mapping[str, Any]) -> E2View:
    """Read E2's JSON: ``steps`` of step, title, tool_calls, answer, files, watermark."""
    steps = sorted((_step(s) for s in _objects(data, "steps")), key=lambda s: s.step)
    return E2View(tuple(steps))


@dataclass(frozen=True)
class GridCell:
    """One cell of E5's cadence grid: a plain Q&A agent with one trigger and one keep."""

    trigger: int
    keep: int
    first: int | None
    """The round of the first compaction; None when it never compacted."""
    first_formula: int
    """The article's ``ceil((trigger + 1) / 2)``."""
    intervals: tuple[int, ...]
    """Every distinct gap, in rounds, between two compactions, sorted."""
    interval: int | None
    """The gap when there was exactly one; None otherwise."""
    formula: int
    """The article's ``ceil((trigger − keep − 1) / 2)``."""
    compactions: int

    @property
    def agrees(self) -> bool:
        """Whether the measured interval is the formula's (the E5-CADENCE-GRID comparison)."""
        return self.interval == self.formula

    @property
    def measured_text(self) -> str:
        """The measured interval; several gaps joined by commas; ``-`` without any gap."""
        if self.interval is not None:
            return str(self.interval)
        return ",".join(map(str, self.intervals)) or "-"


@dataclass(frozen=True)
class ToolCompaction:
    """One compaction inside E5's tool-heavy call."""

    before_request: int | None
    """The model request (1-based, within the call) it ran before; None when not recorded."""
    trigger: str
    total_messages: int
    naive_cutoff: int
    cutoff: int
    cutoff_reason: str
    keeping: int
    messages_after: int
    log_lines: tuple[str, ...]


@dataclass(frozen=True)
class ToolHeavy:
    """E5's one call with several tool rounds."""

    requests: int
    """Model requests of the agent in that call."""
    compactions: tuple[ToolCompaction, ...]
    pairing_held: bool
    tool_calls: tuple[str, ...]


@dataclass(frozen=True)
class LargeResult:
    """E5's 300,000-character tool result, offloaded and read back."""

    original_chars: int
    offloaded_to: str
    preview_chars: int
    preview_has_head: bool
    preview_has_tail: bool
    read_file_restores_text: bool
    read_file_result_chars: int
    read_file_result_offloaded: bool


@dataclass(frozen=True)
class Failures:
    """E5's failure paths: the summary call, a context overflow, a consolidation write."""

    summary_compacted: bool
    summary_messages_after: int | None
    summary_starts: str
    overflow_compactions: int
    overflow_trigger: str
    overflow_answer: str
    overflow_twice: str
    """What a second context-length error in a row did."""
    consolidation_status: str
    consolidation_watermark: str
    consolidation_watermark_unchanged: bool
    consolidation_redone_status: str
    consolidation_same_batch: bool
    facts_in_memory: tuple[str, ...]


@dataclass(frozen=True)
class FlushOutcome:
    """One order of memory flush and background maintenance."""

    order: str
    maintenance: str
    log_line: str
    memory_exists: bool
    daily_files: int


@dataclass(frozen=True)
class FallbackProfile:
    """The thresholds one model-window table resolves for ``deepseek-flash``."""

    profile: str
    window: int
    trigger_tokens: int
    keep_tokens: int
    keep_messages: int
    explanation: str


@dataclass(frozen=True)
class E5View:
    """E5: the claims the article computed but never ran."""

    grid: tuple[GridCell, ...]
    """Sorted by trigger, then keep."""
    tool_heavy: ToolHeavy
    large_result: LargeResult
    failures: Failures
    flush_order: tuple[FlushOutcome, ...]
    fallback: tuple[FallbackProfile, ...]

    @property
    def triggers(self) -> tuple[int, ...]:
        """The grid's triggers, ascending."""
        return tuple(sorted({c.trigger for c in self.grid}))

    @property
    def keeps(self) -> tuple[int, ...]:
        """The grid's keeps, ascending."""
        return tuple(sorted({c.keep for c in self.grid}))

    def cell(self, trigger: int, keep: int) -> GridCell | None:
        """The cell for ``trigger`` and ``keep``; None when it was not run (keep ≥ trigger)."""
        return next((c for c in self.grid if c.trigger == trigger and c.keep == keep), None)

    @property
    def disagreeing(self) -> tuple[GridCell, ...]:
        """The cells whose measured interval is not the formula's."""
        return tuple(c for c in self.grid if not c.agrees)


def _ints(data: Any, key: str) -> tuple[int, ...]:
    values = _get(data, key, list)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise ShapeError(f"{key!r} should hold integers only")
    return tuple(values)


def _grid_cell(cell: Mapping[str, Any]) -> GridCell:
    return GridCell(
        _get(cell, "trigger", int),
        _get(cell, "keep", int),
        _get(cell, "first", int, optional=True),
        _get(cell, "first_formula", int),
        tuple(sorted(_ints(cell, "intervals"))),
        _get(cell, "interval", int, optional=True),
        _get(cell, "formula", int),
        _get(cell, "compactions", int),
    )


def _tool_heavy(data: Mapping[str, Any]) -> ToolHeavy:
    events = _objects(data, "compactions")
    before = _ints(data, "compactions_before_request")
    compactions = tuple(
        ToolCompaction(
            before[i] if i < len(before) else None,
            _get(event, "trigger", str),
            _get(event, "total_messages", int),
            _get(event, "naive_cutoff", int),
            _get(event, "cutoff", int),
            _get(event, "cutoff_reason", str),
            _get(event, "keeping", int),
            _get(event, "messages_after", int),
            tuple(str(line) for line in _get(event, "log_lines", list)),
        )
        for i, event in enumerate(events)
    )
    return ToolHeavy(
        _get(data, "requests", int),
        compactions,
        _get(data, "pairing_held", bool),
        tuple(str(c) for c in _get(data, "tool_calls", list)),
    )


def _large_result(data: Mapping[str, Any]) -> LargeResult:
    return LargeResult(
        _get(data, "original_chars", int),
        _get(data, "offloaded_to", str),
        _get(data, "preview_chars", int),
        _get(data, "preview_has_head", bool),
        _get(data, "preview_has_tail", bool),
        _get(data, "read_file_restores_text", bool),
        _get(data, "read_file_result_chars", int),
        _get(data, "read_file_result_offloaded", bool),
    )


def _failures(data: Mapping[str, Any]) -> Failures:
    summary = _get(data, "summary_failure", Mapping)
    overflow = _get(data, "overflow", Mapping)
    once = _get(overflow, "one_error", Mapping)
    write = _get(data, "consolidation_write_failure", Mapping)
    return Failures(
        _get(summary, "compacted", bool),
        _get(summary, "messages_after", int, optional=True),
        _get(summary, "summary_starts", str, optional=True) or "",
        _get(once, "compactions", int),
        _get(once, "trigger", str, optional=True) or "",
        _get(once, "answer", str),
        _get(overflow, "two_errors", str),
        _get(write, "failed_status", str),
        _get(write, "watermark_after_failure", str),
        _get(write, "watermark_unchanged", bool),
        _get(write, "redone_status", str),
        _get(write, "same_batch", bool),
        tuple(str(f) for f in _get(write, "facts_in_memory", list)),
    )


def _flush_outcome(order: str, data: Any) -> FlushOutcome:
    return FlushOutcome(
        order,
        _get(data, "maintenance", str, optional=True) or "",
        _get(data, "log_line", str, optional=True) or "",
        _get(data, "memory_exists", bool),
        _get(data, "daily_files", int),
    )


def _fallback(profile: str, data: Any) -> FallbackProfile:
    return FallbackProfile(
        profile,
        _get(data, "window", int),
        _get(data, "trigger_tokens", int),
        _get(data, "keep_tokens", int),
        _get(data, "keep_messages", int),
        _get(data, "explanation", str),
    )


def e5_view(data: Mapping[str, Any]) -> E5View:
    """Read E5's JSON (see ``experiments/e5.py``, ``measure``)."""
    grid = tuple(sorted((_grid_cell(c) for c in _objects(data, "grid")), key=_cell_key))
    if not grid:
        raise ShapeError("'grid' holds no cells")
    if len({_cell_key(c) for c in grid}) != len(grid):
        raise ShapeError("'grid' holds a trigger and keep twice")
    flush = _get(data, "flush_order", Mapping)
    fallback = _get(data, "fallback", Mapping)
    return E5View(
        grid,
        _tool_heavy(_get(data, "tool_heavy", Mapping)),
        _large_result(_get(data, "large_result", Mapping)),
        _failures(_get(data, "failures", Mapping)),
        tuple(_flush_outcome(str(k), v) for k, v in flush.items()),
        tuple(_fallback(str(k), v) for k, v in fallback.items()),
    )


def _cell_key(cell: GridCell) -> tuple[int, int]:
    return (cell.trigger, cell.keep)


@dataclass(frozen=True)
class SurfaceOp:
    """What a log event did to the surface: ``append``, or a replace of positions start..end."""

    op: str
    start: int | None = None
    """The first surface position replaced (inclusive); None for an append."""
    end: int | None = None
    """The last surface position replaced (inclusive); None for an append."""

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


@dataclass(frozen=True)
class ReplacedRange:
    """The DSH engine's replaced range: surface positions start..end, the last ``kept`` kept."""

    start: int
    end: int
    kept: int
    sources_cover_shadowed: bool


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
    range: ReplacedRange | None
    """DSH's replaced range; None for AgentScope, or when DSH did not compact."""
    error: str | None
    """Why DSH did not compact; None when it did (and always for AgentScope)."""

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
            if op is not None and op.start is not None and op.end is not None:
                return op.start, op.end
        return None


@dataclass(frozen=True)
class ConversationRow:
    """One message of E4's conversation before compaction."""

    index: int
    role: str
    text: str


@dataclass(frozen=True)
class E4View:
    """E4: one recorded conversation compacted once by each engine."""

    conversation: tuple[ConversationRow, ...]
    facts: tuple[tuple[str, str], ...]
    """The planted facts: (name, value), in the JSON's order."""
    keep: int
    engines: tuple[EngineRun, ...]
    """In the JSON's order; engine names are distinct."""

    def engine(self, name: str) -> EngineRun | None:
        """The run of the engine called ``name``; None when it is absent."""
        return next((e for e in self.engines if e.engine == name), None)


def _surface_op(value: Any) -> SurfaceOp | None:
    if value is None:
        return None
    if isinstance(value, str):
        return SurfaceOp(value)
    start = _get(value, "start", int, optional=True)
    end = _get(value, "end", int, optional=True)
    if (start is None) != (end is None):
        raise ShapeError("a surface op holds a start without an end, or an end without a start")
    return SurfaceOp(_get(value, "op", str), start, end)


def _log_event(record: Mapping[str, Any]) -> LogEventRow:
    if "surface_op" not in record:
        raise ShapeError("missing key 'surface_op'")
    sources = _ints(record, "sources") if record.get("sources") is not None else None
    return LogEventRow(
        _get(record, "seq", int),
        _get(record, "type", str),
        _surface_op(record["surface_op"]),
        sources,
    )


def _replaced_range(data: Any) -> ReplacedRange | None:
    if data is None:
        return None
    return ReplacedRange(
        _get(data, "start", int),
        _get(data, "end", int),
        _get(data, "kept", int),
        _get(data, "sources_cover_shadowed", bool),
    )


def _strings(data: Any, key: str) -> tuple[str, ...]:
    values = _get(data, key, list)
    if not all(isinstance(v, str) for v in values):
        raise ShapeError(f"{key!r} should hold strings only")
    return tuple(values)


def _engine_run(data: Mapping[str, Any]) -> EngineRun:
    reuse = _get(data, "prefix_reuse", (int, float))
    if not 0 <= reuse <= 1:
        raise ShapeError(f"'prefix_reuse' is {reuse}, not a share between 0 and 1")
    return EngineRun(
        _get(data, "engine", str),
        _get(data, "messages_before", int),
        _get(data, "messages_after", int),
        _get(data, "estimated_tokens_before", int),
        _get(data, "estimated_tokens_after", int),
        _get(data, "dsh_meter_before", int),
        _get(data, "dsh_meter_after", int),
        _get(data, "summary", str),
        _get(data, "summary_chars", int),
        _get(data, "summary_request_messages", int),
        float(reuse),
        _get(data, "summary_prompt_tokens", int, optional=True),
        _get(data, "summary_cached_tokens", int, optional=True),
        _strings(data, "facts_kept"),
        _get(data, "replay_equals_live", bool, optional=True),
        _get(data, "pairing_valid", bool, optional=True),
        tuple(_log_event(e) for e in _objects(data, "events")),
        _replaced_range(_get(data, "range", Mapping, optional=True)),
        _get(data, "error", str, optional=True),
    )


def e4_view(data: Mapping[str, Any]) -> E4View:
    """Read E4's JSON (see ``experiments/e4.py``, ``measure`` and ``_engine_report``)."""
    engines = tuple(_engine_run(e) for e in _objects(data, "engines"))
    if not engines:
        raise ShapeError("'engines' holds no engine")
    if len({e.engine for e in engines}) != len(engines):
        raise ShapeError("'engines' holds an engine twice")
    facts = _get(data, "facts", Mapping)
    if not all(isinstance(v, str) for v in facts.values()):
        raise ShapeError("'facts' should hold strings only")
    conversation = tuple(
        ConversationRow(index, _get(m, "role", str), _get(m, "text", str, optional=True) or "")
        for index, m in enumerate(_objects(data, "conversation"))
    )
    return E4View(
        conversation,
        tuple((str(k), v) for k, v in facts.items()),
        _get(data, "keep", int),
        engines,
    )


View = E1View | E2View | E3View | E4View | E5View
VIEWS: dict[str, Callable[[Mapping[str, Any]], View]] = {
    "E1": e1_view,
    "E2": e2_view,
    "E3": e3_view,
    "E4": e4_view,
    "E5": e5_view,
}


def read_view(doc: ExperimentDoc) -> tuple[View | None, str]:
    """The experiment's typed view, or None and why it must be rendered generically."""
    if doc.data is None:
        return None, doc.error
    reader = VIEWS.get(doc.id)
    if reader is None:
        return None, "no dedicated page for this experiment"
    try:
        return reader(doc.data), ""
    except ShapeError as error:
        return None, f"its JSON is not shaped as expected ({error})"
