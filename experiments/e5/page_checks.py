"""E5's checks beside the cadence grid: the other claims the article computed but never ran.

A call with several tool rounds, a large tool result, the failure paths, the order of memory
flush and maintenance, and the thresholds for an unknown window: each one's records, how it is
rendered from its part of :class:`~experiments.e5.view.E5View` (``*_section``); :mod:`.page`
assembles them into E5's page.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pandas as pd

from experiments.e5.view import Failures, FallbackProfile, FlushOutcome, LargeResult, ToolHeavy
from lab import and_list, fence, markdown_table, yes

__all__ = [
    "failures_section",
    "fallback_section",
    "flush_order_section",
    "large_result_section",
    "tool_heavy_section",
]


def tool_heavy_section(heavy: ToolHeavy) -> str:
    """The call with several tool rounds: its compactions and their log lines."""
    befores = [str(b) for b in heavy.compactions_before_request]
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
            "before request": _blank(heavy.before_request(number - 1)),
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
        before_request = heavy.before_request(number - 1)
        where = "" if before_request is None else f", before request {before_request}"
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


def _blank(value: int | None) -> int | str:
    return "" if value is None else value


def failures_section(f: Failures) -> str:
    """What each failure path did."""
    summary, once, write = f.summary_failure, f.overflow.one_error, f.consolidation_write_failure
    after = "" if summary.messages_after is None else f", {summary.messages_after} messages after"
    rows = [
        (
            "the summary call fails",
            ("compacted" if summary.compacted else "did not compact")
            + f"{after}; the summary starts `{summary.summary_starts or ''}…`",
        ),
        (
            "one context-length error",
            f"{once.compactions} forced compaction (trigger `{once.trigger or ''}`), "
            f"the retry answered `{once.answer}`",
        ),
        ("a second context-length error", f.overflow.two_errors),
        (
            "writing MEMORY.md fails in consolidation",
            f"status {write.failed_status}; watermark "
            + ("unchanged" if write.watermark_unchanged else "moved")
            + f" (`{write.watermark_after_failure}`)",
        ),
        (
            "the next consolidation",
            f"status {write.redone_status}; "
            + ("redid the same batch" if write.same_batch else "took another batch")
            + "; facts in MEMORY.md: "
            + (", ".join(write.facts_in_memory) or "none"),
        ),
    ]
    frame = pd.DataFrame(rows, columns=["when", "what happened"])
    return "### Failures\n\n" + markdown_table(frame)


def flush_order_section(outcomes: dict[str, FlushOutcome]) -> str:
    """Memory flush and background maintenance, in either order."""
    rows = [
        {
            "order": order,
            "maintenance": o.maintenance or "",
            "MEMORY.md": "present" if o.memory_exists else "absent",
            "daily files": o.daily_files,
            "log line": o.log_line or "",
        }
        for order, o in outcomes.items()
    ]
    if not rows:
        return "### Memory flush and maintenance order\n\n_Not recorded._\n"
    return (
        "### Memory flush and maintenance order\n\n"
        "One conversation, then close, with the background maintenance (consolidation into "
        "MEMORY.md) run before the memory flush (`maintenance_first`, the article's case) or "
        "after it (`flush_first`):\n\n" + markdown_table(pd.DataFrame(rows))
    )


def fallback_section(profiles: dict[str, FallbackProfile]) -> str:
    """The thresholds each model-window table resolves for an unknown window."""
    fields: tuple[tuple[str, Callable[[FallbackProfile], str]], ...] = (
        ("context window", lambda p: f"{p.window:,}"),
        ("token trigger", lambda p: "off" if p.trigger_tokens is None else f"{p.trigger_tokens:,}"),
        ("keep tokens", lambda p: f"{p.keep_tokens:,}"),
        ("keep messages", lambda p: f"{p.keep_messages:,}"),
        ("explanation", lambda p: p.explanation),
    )
    rows = [{"": name, **{k: show(p) for k, p in profiles.items()}} for name, show in fields]
    if not profiles:
        return "### Thresholds for an unknown window\n\n_Not recorded._\n"
    return (
        "### Thresholds for an unknown window\n\n"
        "`deepseek-flash` with the default compaction config, resolved with each model-window "
        "table:\n\n" + markdown_table(pd.DataFrame(rows))
    )
