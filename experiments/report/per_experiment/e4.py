"""E4's report: one recorded conversation compacted once by each engine.

:func:`e4_view` reads ``E4.json`` (see ``experiments/e4.py``) into an :class:`E4View`;
:func:`e4_section` renders it as the Measurements section of ``E4.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from experiments.report.glossary import english_column, gloss_note
from experiments.report.markdown import (
    NEWLINE_MARK,
    and_list,
    fence,
    flat_text,
    markdown_table,
    yes,
)
from experiments.report.shape import ShapeError, get, ints, objects, strings

__all__ = [
    "ENGINE_TITLES",
    "ConversationRow",
    "E4View",
    "EngineRun",
    "LogEventRow",
    "ReplacedRange",
    "SurfaceOp",
    "e4_section",
    "e4_view",
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
    start = get(value, "start", int, optional=True)
    end = get(value, "end", int, optional=True)
    if (start is None) != (end is None):
        raise ShapeError("a surface op holds a start without an end, or an end without a start")
    return SurfaceOp(get(value, "op", str), start, end)


def _log_event(record: Mapping[str, Any]) -> LogEventRow:
    if "surface_op" not in record:
        raise ShapeError("missing key 'surface_op'")
    sources = ints(record, "sources") if record.get("sources") is not None else None
    positions = ints(record, "positions") if record.get("positions") is not None else None
    if positions is not None and len(positions) != 2:
        raise ShapeError("positions must be [start, end]")
    return LogEventRow(
        get(record, "seq", int),
        get(record, "type", str),
        _surface_op(record["surface_op"]),
        sources,
        (positions[0], positions[1]) if positions is not None else None,
    )


def _replaced_range(data: Any) -> ReplacedRange | None:
    if data is None:
        return None
    return ReplacedRange(
        get(data, "start", int),
        get(data, "end", int),
        get(data, "kept", int),
        get(data, "sources_cover_shadowed", bool),
    )


def _engine_run(data: Mapping[str, Any]) -> EngineRun:
    reuse = get(data, "prefix_reuse", (int, float))
    if not 0 <= reuse <= 1:
        raise ShapeError(f"'prefix_reuse' is {reuse}, not a share between 0 and 1")
    return EngineRun(
        get(data, "engine", str),
        get(data, "messages_before", int),
        get(data, "messages_after", int),
        get(data, "estimated_tokens_before", int),
        get(data, "estimated_tokens_after", int),
        get(data, "dsh_meter_before", int),
        get(data, "dsh_meter_after", int),
        get(data, "summary", str),
        get(data, "summary_chars", int),
        get(data, "summary_request_messages", int),
        float(reuse),
        get(data, "summary_prompt_tokens", int, optional=True),
        get(data, "summary_cached_tokens", int, optional=True),
        strings(data, "facts_kept"),
        get(data, "replay_equals_live", bool, optional=True),
        get(data, "pairing_valid", bool, optional=True),
        tuple(_log_event(e) for e in objects(data, "events")),
        _replaced_range(get(data, "range", Mapping, optional=True)),
        get(data, "error", str, optional=True),
    )


def e4_view(data: Mapping[str, Any]) -> E4View:
    """Read E4's JSON (see ``experiments/e4.py``, ``measure`` and ``_engine_report``)."""
    engines = tuple(_engine_run(e) for e in objects(data, "engines"))
    if not engines:
        raise ShapeError("'engines' holds no engine")
    if len({e.engine for e in engines}) != len(engines):
        raise ShapeError("'engines' holds an engine twice")
    facts = get(data, "facts", Mapping)
    if not all(isinstance(v, str) for v in facts.values()):
        raise ShapeError("'facts' should hold strings only")
    conversation = tuple(
        ConversationRow(index, get(m, "role", str), get(m, "text", str, optional=True) or "")
        for index, m in enumerate(objects(data, "conversation"))
    )
    return E4View(
        conversation,
        tuple((str(k), v) for k, v in facts.items()),
        get(data, "keep", int),
        engines,
    )


def _percent(share: float | None, digits: int) -> str:
    return "—" if share is None else f"{share:.{digits}%}"


def _count(value: int | None) -> str:
    return "—" if value is None else str(value)


def _flag(value: bool | None) -> str:
    return "—" if value is None else yes(value)


def _cached_text(run: EngineRun) -> str:
    if run.summary_cached_tokens is None:
        return "—"
    share = run.cached_share
    return f"{run.summary_cached_tokens}" + ("" if share is None else f" ({share:.1%})")


def _facts_text(run: EngineRun, total: int) -> str:
    kept = f"{len(run.facts_kept)} of {total}"
    return kept + (f": {', '.join(run.facts_kept)}" if run.facts_kept else "")


def _range_text(run: EngineRun) -> str:
    if run.range is not None:
        return f"{run.range.start}..{run.range.end}, keeping {run.range.kept}"
    replaced = run.replaced
    if replaced is None:
        return "none" + (f": {run.error}" if run.error else "")
    return f"{replaced[0]}..{replaced[1]}, keeping {run.messages_before - replaced[1] - 1}"


def _engines_table(view: E4View) -> str:
    total = len(view.facts)
    fields: list[tuple[str, Callable[[EngineRun], str]]] = [
        ("messages before → after", lambda r: f"{r.messages_before} → {r.messages_after}"),
        (
            "tokens before → after, AgentScope estimator (2.5 chars/token)",
            lambda r: f"{r.estimated_tokens_before} → {r.estimated_tokens_after}",
        ),
        (
            "tokens before → after, DSH meter (4 chars/token)",
            lambda r: f"{r.dsh_meter_before} → {r.dsh_meter_after}",
        ),
        ("replaced range (surface positions)", _range_text),
        ("summary chars", lambda r: str(r.summary_chars)),
        ("summary request messages", lambda r: str(r.summary_request_messages)),
        ("prefix reuse", lambda r: _percent(r.prefix_reuse, 2)),
        ("summary prompt tokens", lambda r: _count(r.summary_prompt_tokens)),
        ("cached tokens", _cached_text),
        ("planted facts kept", lambda r: _facts_text(r, total)),
        ("replay equals live", lambda r: _flag(r.replay_equals_live)),
        ("tool pairing valid after", lambda r: _flag(r.pairing_valid)),
    ]
    if any(r.error for r in view.engines):
        fields.append(("error", lambda r: r.error or ""))
    rows = [{"": label, **{r.title: show(r) for r in view.engines}} for label, show in fields]
    return markdown_table(pd.DataFrame(rows))


def _facts_table(view: E4View) -> str:
    rows = [
        {
            "fact": name,
            "planted value": f"`{value}`",
            **{r.title: yes(name in r.facts_kept) for r in view.engines},
        }
        for name, value in view.facts
    ]
    return markdown_table(english_column(pd.DataFrame(rows), ["planted value"]))


def _surface_op_text(op: SurfaceOp | None, positions: tuple[int, int] | None = None) -> str:
    if op is None:
        return "—"
    if op.start is None or op.end is None:
        return op.op
    where = f" (positions {positions[0]}..{positions[1]})" if positions else ""
    return f"{op.op} seqs {op.start}..{op.end}{where}"


def _events_table(run: EngineRun) -> str:
    if not run.events:
        return "_No events were appended._\n"
    with_sources = any(e.sources is not None for e in run.events)
    rows = []
    for event in run.events:
        row = {
            "seq": event.seq,
            "type": event.type,
            "surface op": _surface_op_text(event.surface_op, event.positions),
        }
        if with_sources:
            row["sources"] = ", ".join(map(str, event.sources or ())) or "—"
        rows.append(row)
    return markdown_table(pd.DataFrame(rows))


def _events_section(view: E4View) -> str:
    parts = [
        "### Events each compaction appended\n",
        "Each engine compacted its own copy of the conversation's event log; these are the "
        "events that compaction appended. A replace names the span it covers by the event "
        "seqs at its ends, both included, as DeepSeek-Harness does (the positions they sat at "
        "on the surface follow); sources are the seqs a replace cites.\n",
    ]
    for run in view.engines:
        title = f"#### {run.title} ({len(run.events)} events)\n"
        parts += [title, _events_table(run)]
    return "\n".join(parts)


def _conversation_section(view: E4View) -> str:
    replaced = {run.title: run.replaced for run in view.engines if run.replaced is not None}
    rows = [
        {
            "#": m.index,
            "role": m.role,
            "chars": len(m.text),
            "replaced by": ", ".join(
                name for name, (start, end) in replaced.items() if start <= m.index <= end
            )
            or "kept",
            "text": flat_text(m.text, 80),
        }
        for m in view.conversation
    ]
    intro = (
        f"### The conversation ({len(view.conversation)} messages before compaction)\n\n"
        f"Both engines kept the last {view.keep}; texts are cut to 80 characters, "
        f"{NEWLINE_MARK} marks a line break.\n"
    )
    if not rows:
        return intro + "\n_No messages were recorded._\n"
    return intro + "\n" + markdown_table(english_column(pd.DataFrame(rows), ["text"]))


def _summaries_section(view: E4View) -> str:
    parts = ["### The summaries\n"]
    for run in view.engines:
        parts += [
            f"#### {run.title} ({run.summary_chars} characters)\n",
            fence(run.summary, "text") if run.summary else "_No summary._\n",
            gloss_note(run.summary),
        ]
    return "\n".join(parts)


def e4_section(view: E4View, claims: pd.DataFrame) -> str:
    """The engines side by side, the planted facts, the events, conversation and summaries."""
    names = and_list([r.title for r in view.engines])
    return "\n".join(
        [
            "### The two engines side by side\n"
            if len(view.engines) == 2
            else "### The engines side by side\n",
            f"{names} each compacted the same recorded conversation once, keeping the last "
            f"{view.keep} messages. Tokens are counted with AgentScope's estimator (2.5 "
            "characters per token) and with DSH's meter (4 characters per token). Prefix reuse "
            "is the share of the summary request's bytes that repeat the previous request's "
            "start; prompt and cached tokens are what llama-server reported for the summary "
            "call. The bars are [E4_cache.png](E4_cache.png).\n",
            _engines_table(view),
            "### Planted facts in each summary\n",
            "A fact counts as kept when its value appears verbatim in the summary.\n",
            _facts_table(view),
            _events_section(view),
            _conversation_section(view),
            _summaries_section(view),
        ]
    )
