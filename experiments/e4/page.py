"""E4's report: one recorded conversation compacted once by each engine.

``PAGE.read`` reads ``E4.json`` back into the :class:`~experiments.e4.view.E4View` that
``experiments/e4/__init__.py`` wrote it from;
:func:`e4_section` renders it as the Measurements section of ``E4.md``.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from experiments.e4.plot import e4_plot
from experiments.e4.view import (
    ENGINE_TITLES,
    ConversationRow,
    E4View,
    EngineRun,
    LogEventRow,
    ReplacedRange,
    SurfaceOp,
)
from lab import (
    NEWLINE_MARK,
    Evidence,
    Page,
    and_list,
    english_column,
    fence,
    flat_text,
    gloss_note,
    markdown_table,
    yes,
)

__all__ = [
    "E4_ABOUT",
    "ENGINE_TITLES",
    "PAGE",
    "ConversationRow",
    "E4View",
    "EngineRun",
    "LogEventRow",
    "ReplacedRange",
    "SurfaceOp",
    "e4_section",
]

E4_ABOUT = (
    "One recorded conversation compacted once by each engine (AgentScope and DeepSeek-Harness): "
    "which range each replaces, the events it appends, how much of the summary request the "
    "server could serve from its cache, and which planted facts each summary keeps."
)
"""What the experiment tests (its section of ``index.html`` opens with it)."""


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
        for name, value in view.facts.items()
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


PAGE = Page(
    E4View,
    e4_section,
    E4_ABOUT,
    plot=e4_plot,
    plot_every_set=True,
    every_model=True,
    judges={"e4-rules": "experiments.e4.claims: E4's rules over the two engines' runs"},
    evidence=Evidence(cassettes=("E4/compactions",)),
)
