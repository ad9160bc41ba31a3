"""E5's checks beside the cadence grid: the other claims the article computed but never ran.

A call with several tool rounds, a large tool result, the failure paths, the order of memory
flush and maintenance, and the thresholds for an unknown window: each one's records, how it is
read from its part of ``E5.json`` (``read_*``) and its Markdown (``*_section``). :mod:`.e5`
assembles them into :class:`.e5.E5View` and E5's page.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from experiments.report.markdown import and_list, fence, markdown_table, yes
from experiments.report.shape import get, ints, objects

__all__ = [
    "Failures",
    "FallbackProfile",
    "FlushOutcome",
    "LargeResult",
    "ToolCompaction",
    "ToolHeavy",
    "failures_section",
    "fallback_section",
    "flush_order_section",
    "large_result_section",
    "read_failures",
    "read_fallback",
    "read_flush_outcome",
    "read_large_result",
    "read_tool_heavy",
    "tool_heavy_section",
]


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


def read_tool_heavy(data: Mapping[str, Any]) -> ToolHeavy:
    events = objects(data, "compactions")
    before = ints(data, "compactions_before_request")
    compactions = tuple(
        ToolCompaction(
            before[i] if i < len(before) else None,
            get(event, "trigger", str),
            get(event, "total_messages", int),
            get(event, "naive_cutoff", int),
            get(event, "cutoff", int),
            get(event, "cutoff_reason", str),
            get(event, "keeping", int),
            get(event, "messages_after", int),
            tuple(str(line) for line in get(event, "log_lines", list)),
        )
        for i, event in enumerate(events)
    )
    return ToolHeavy(
        get(data, "requests", int),
        compactions,
        get(data, "pairing_held", bool),
        tuple(str(c) for c in get(data, "tool_calls", list)),
    )


def read_large_result(data: Mapping[str, Any]) -> LargeResult:
    return LargeResult(
        get(data, "original_chars", int),
        get(data, "offloaded_to", str),
        get(data, "preview_chars", int),
        get(data, "preview_has_head", bool),
        get(data, "preview_has_tail", bool),
        get(data, "read_file_restores_text", bool),
        get(data, "read_file_result_chars", int),
        get(data, "read_file_result_offloaded", bool),
    )


def read_failures(data: Mapping[str, Any]) -> Failures:
    summary = get(data, "summary_failure", Mapping)
    overflow = get(data, "overflow", Mapping)
    once = get(overflow, "one_error", Mapping)
    write = get(data, "consolidation_write_failure", Mapping)
    return Failures(
        get(summary, "compacted", bool),
        get(summary, "messages_after", int, optional=True),
        get(summary, "summary_starts", str, optional=True) or "",
        get(once, "compactions", int),
        get(once, "trigger", str, optional=True) or "",
        get(once, "answer", str),
        get(overflow, "two_errors", str),
        get(write, "failed_status", str),
        get(write, "watermark_after_failure", str),
        get(write, "watermark_unchanged", bool),
        get(write, "redone_status", str),
        get(write, "same_batch", bool),
        tuple(str(f) for f in get(write, "facts_in_memory", list)),
    )


def read_flush_outcome(order: str, data: Any) -> FlushOutcome:
    return FlushOutcome(
        order,
        get(data, "maintenance", str, optional=True) or "",
        get(data, "log_line", str, optional=True) or "",
        get(data, "memory_exists", bool),
        get(data, "daily_files", int),
    )


def read_fallback(profile: str, data: Any) -> FallbackProfile:
    return FallbackProfile(
        profile,
        get(data, "window", int),
        get(data, "trigger_tokens", int),
        get(data, "keep_tokens", int),
        get(data, "keep_messages", int),
        get(data, "explanation", str),
    )


def tool_heavy_section(heavy: ToolHeavy) -> str:
    """The call with several tool rounds: its compactions and their log lines."""
    befores = [str(c.before_request) for c in heavy.compactions if c.before_request is not None]
    tools = ", ".join(f"{name} × {n}" for name, n in Counter(heavy.tool_calls).items())
    before = "request" if len(befores) == 1 else "requests"
    parts = [
        "### Several tool rounds in one call\n",
        f"One call made {len(heavy.tool_calls)} tool calls ({tools}) over {heavy.requests} "
        f"model requests and compacted {len(heavy.compactions)} times inside it"
        + (f", before {before} {and_list(befores)}" if befores else "")
        + ". Pairing "
        + (
            "held: every request kept each tool call beside its result."
            if heavy.pairing_held
            else "broke: some request separated a tool call from its result."
        )
        + "\n",
    ]
    rows = [
        {
            "compaction": number,
            "before request": "" if c.before_request is None else c.before_request,
            "trigger": c.trigger,
            "messages": c.total_messages,
            "naive cutoff": c.naive_cutoff,
            "cutoff": c.cutoff,
            "keeping": c.keeping,
            "messages after": c.messages_after,
            "why this cutoff": c.cutoff_reason,
        }
        for number, c in enumerate(heavy.compactions, start=1)
    ]
    if rows:
        parts.append(markdown_table(pd.DataFrame(rows)))
    for number, c in enumerate(heavy.compactions, start=1):
        where = "" if c.before_request is None else f", before request {c.before_request}"
        parts += [f"Log lines of compaction {number}{where}:\n", fence("\n".join(c.log_lines))]
    return "\n".join(parts)


def large_result_section(big: LargeResult) -> str:
    """The large tool result: offloaded, previewed, read back."""
    rows = [
        ("tool result", f"{big.original_chars:,} characters"),
        ("offloaded to", f"`{big.offloaded_to}`"),
        ("preview kept in context", f"{big.preview_chars:,} characters"),
        ("preview holds the first 2,000 characters", yes(big.preview_has_head)),
        ("preview holds the last 2,000 characters", yes(big.preview_has_tail)),
        ("read_file gives the full text back", yes(big.read_file_restores_text)),
        ("read_file's result", f"{big.read_file_result_chars:,} characters"),
        ("read_file's result offloaded again", yes(big.read_file_result_offloaded)),
    ]
    frame = pd.DataFrame(rows, columns=["", "value"])
    return "### A large tool result\n\n" + markdown_table(frame)


def failures_section(f: Failures) -> str:
    """What each failure path did."""
    after = (
        "" if f.summary_messages_after is None else f", {f.summary_messages_after} messages after"
    )
    rows = [
        (
            "the summary call fails",
            ("compacted" if f.summary_compacted else "did not compact")
            + f"{after}; the summary starts `{f.summary_starts}…`",
        ),
        (
            "one context-length error",
            f"{f.overflow_compactions} forced compaction (trigger `{f.overflow_trigger}`), "
            f"the retry answered `{f.overflow_answer}`",
        ),
        ("a second context-length error", f.overflow_twice),
        (
            "writing MEMORY.md fails in consolidation",
            f"status {f.consolidation_status}; watermark "
            + ("unchanged" if f.consolidation_watermark_unchanged else "moved")
            + f" (`{f.consolidation_watermark}`)",
        ),
        (
            "the next consolidation",
            f"status {f.consolidation_redone_status}; "
            + ("redid the same batch" if f.consolidation_same_batch else "took another batch")
            + "; facts in MEMORY.md: "
            + (", ".join(f.facts_in_memory) or "none"),
        ),
    ]
    frame = pd.DataFrame(rows, columns=["when", "what happened"])
    return "### Failures\n\n" + markdown_table(frame)


def flush_order_section(outcomes: tuple[FlushOutcome, ...]) -> str:
    """Memory flush and background maintenance, in either order."""
    rows = [
        {
            "order": o.order,
            "maintenance": o.maintenance,
            "MEMORY.md": "present" if o.memory_exists else "absent",
            "daily files": o.daily_files,
            "log line": o.log_line,
        }
        for o in outcomes
    ]
    if not rows:
        return "### Memory flush and maintenance order\n\n_Not recorded._\n"
    return (
        "### Memory flush and maintenance order\n\n"
        "One conversation, then close, with the background maintenance (consolidation into "
        "MEMORY.md) run before the memory flush (`maintenance_first`, the article's case) or "
        "after it (`flush_first`):\n\n" + markdown_table(pd.DataFrame(rows))
    )


def fallback_section(profiles: tuple[FallbackProfile, ...]) -> str:
    """The thresholds each model-window table resolves for an unknown window."""
    fields = (
        ("context window", lambda p: f"{p.window:,}"),
        ("token trigger", lambda p: f"{p.trigger_tokens:,}"),
        ("keep tokens", lambda p: f"{p.keep_tokens:,}"),
        ("keep messages", lambda p: f"{p.keep_messages:,}"),
        ("explanation", lambda p: p.explanation),
    )
    rows = [{"": name, **{p.profile: show(p) for p in profiles}} for name, show in fields]
    if not profiles:
        return "### Thresholds for an unknown window\n\n_Not recorded._\n"
    return (
        "### Thresholds for an unknown window\n\n"
        "`deepseek-flash` with the default compaction config, resolved with each model-window "
        "table:\n\n" + markdown_table(pd.DataFrame(rows))
    )
