"""Markdown rendering: ``claims.md`` and one readable page per experiment (``<ID>.md``).

Renders what :mod:`.tables` and :mod:`.views` computed; computes nothing of its own beyond
choosing display columns. Markdown tables are written here because ``DataFrame.to_markdown``
needs ``tabulate``, which ctxlab does not depend on.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from experiments.base import dump_json
from experiments.report.tables import (
    ClaimCounts,
    ExperimentDoc,
    ProvenanceRow,
    experiment_title,
    records_frame,
)
from experiments.report.views import (
    E1View,
    E2View,
    E3View,
    E4View,
    E5View,
    EngineRun,
    GridCell,
    MessageRow,
    SurfaceOp,
    View,
)

__all__ = [
    "E5_GRID_CLAIM",
    "PAGE_CLAIM_COLUMNS",
    "claims_markdown",
    "experiment_page",
    "fence",
    "flat_text",
    "markdown_table",
    "short_sha",
    "shorten",
]

PAGE_CLAIM_COLUMNS = ["claim_id", "claim", "article_value", "reproduced_value", "status", "note"]
"""The claims columns an experiment's page shows (its experiment and source are in the header)."""
E5_GRID_CLAIM = "E5-CADENCE-GRID"
"""The claim whose note explains the cells of E5's grid where the formula is wrong."""
DISAGREES = "✗"
NEWLINE_MARK = "⏎"
"""Stands for a line break in texts shortened onto one line."""
PROVENANCE_COLUMNS = ["provider", "model", "model_sha256", "server", "recorded_at", "requests"]


def shorten(text: str, limit: int) -> str:
    """``text`` on one line (runs of whitespace become one space), cut to ``limit`` with ``…``."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def short_sha(digest: str) -> str:
    """The first 12 hex digits of a checksum, with ``…`` when it was longer."""
    return digest if len(digest) <= 12 else digest[:12] + "…"


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    text = str(value).replace("\\", "\\\\").replace("|", "\\|")
    return re.sub(r"\r\n|\r|\n", "<br>", text)


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table; ``|`` and line breaks inside cells are escaped."""
    lines = [
        "| " + " | ".join(_cell(c) for c in frame.columns) + " |",
        "| " + " | ".join("---" for _ in frame.columns) + " |",
    ]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def fence(text: str, language: str = "") -> str:
    """``text`` in a fenced code block whose fence is longer than any backtick run inside."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{language}\n{text.rstrip(chr(10))}\n{marks}\n"


def claims_markdown(claims: pd.DataFrame, counts: ClaimCounts) -> str:
    """``claims.md``: a title, the summary line, then every claim."""
    body = markdown_table(claims) if len(claims) else "_No claims were recorded._\n"
    return f"# Claims: the article beside ctxlab\n\n{counts.line()}\n\n{body}"


def _source_section(rows: list[ProvenanceRow]) -> str:
    sources = ", ".join(dict.fromkeys(r.source for r in rows)) or "unknown"
    cassettes = [r for r in rows if any(getattr(r, c) for c in PROVENANCE_COLUMNS)]
    text = f"**Source:** {sources}\n"
    if cassettes:
        frame = records_frame(cassettes, ProvenanceRow)[PROVENANCE_COLUMNS]
        frame["model_sha256"] = frame["model_sha256"].map(short_sha)
        text += "\n" + markdown_table(frame)
    return text


def _messages_table(messages: tuple[MessageRow, ...], marks: Mapping[int, str]) -> str:
    frame = records_frame(messages, MessageRow)
    frame["text"] = frame["text"].map(lambda t: shorten(t, 90))
    if marks:
        frame.insert(0, "cut", frame["index"].map(lambda i: marks.get(i, "")))
    return markdown_table(frame.rename(columns={"estimated_tokens": "tokens"}))


def _e1_section(view: E1View) -> str:
    naive = next((m for m in view.before if m.index == view.naive_cutoff), None)
    naive_kind = f", a {naive.kind} message" if naive else ""
    marks = {view.naive_cutoff: "naive cutoff", view.cutoff: "safe cutoff"}
    if view.naive_cutoff == view.cutoff:
        marks = {view.cutoff: "naive = safe cutoff"}
    last = view.before[-1].index if view.before else view.cutoff
    tokens = f", {view.estimated_tokens} estimated tokens" if view.estimated_tokens else ""
    after_tokens = (
        f", {view.after_estimated_tokens} estimated tokens" if view.after_estimated_tokens else ""
    )
    parts = [
        f"### Before compaction ({len(view.before)} messages{tokens})\n",
        _messages_table(view.before, marks),
        f"- **Naive cutoff:** {view.naive_cutoff}{naive_kind}",
        f"- **Safe cutoff:** {view.cutoff}: messages {view.cutoff}–{last} are kept "
        f"({view.keeping} messages), the ones before are summarised",
        f"- **Reason:** {view.reason}\n",
        f"### After compaction ({len(view.after)} messages{after_tokens})\n",
        _messages_table(view.after, {}),
    ]
    if view.summary:
        parts += ["### The summary message\n", fence(view.summary, "text")]
    parts += ["### Log lines\n", fence("\n".join(view.log_lines), "text")]
    return "\n".join(parts)


def _e3_section(view: E3View) -> str:
    rows = [
        {
            "round": r.round,
            "user": r.user,
            "context before → after": f"{r.visible_before} → {r.visible_after}",
            "compaction total / cutoff / keeping / after": (
                f"{r.total_messages} / {r.cutoff} / {r.keeping} / {r.messages_after}"
                if r.compacted
                else "—"
            ),
            "summary chars": "" if r.summary_chars is None else r.summary_chars,
            "answer": shorten(r.answer, 160),
        }
        for r in view.rounds
    ]
    parts = ["### Rounds\n", markdown_table(pd.DataFrame(rows))]
    summaries = [r for r in view.rounds if r.compacted]
    if summaries:
        parts.append("### Summaries\n")
    for r in summaries:
        parts += [
            f"#### Round {r.round} ({r.summary_chars} characters)\n",
            fence(r.summary, "text"),
        ]
    if view.final_summary and view.final_summary != (summaries[-1].summary if summaries else ""):
        parts += ["### Summary message in the final context\n", fence(view.final_summary, "text")]
    return "\n".join(parts)


def _files_text(step: Any) -> str:
    return "; ".join(
        f"{f.path}: {f.size} B" if f.exists else f"{f.path}: missing" for f in step.files
    )


def _e2_section(view: E2View) -> str:
    rows = [
        {
            "step": s.step,
            "title": s.title,
            "tool calls": ", ".join(s.tool_calls),
            "answer": shorten(s.answer, 160),
            "files": _files_text(s),
            "watermark": s.watermark or "",
        }
        for s in view.steps
    ]
    return "### Steps\n\n" + markdown_table(pd.DataFrame(rows))


def _grid_text(cell: GridCell | None) -> str:
    if cell is None:
        return ""
    return f"{cell.measured_text} / {cell.formula}" + ("" if cell.agrees else f" {DISAGREES}")


def _and_list(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _cells_list(cells: tuple[GridCell, ...]) -> str:
    return _and_list([f"trigger {c.trigger} / keep {c.keep}" for c in cells])


def _grid_claim_note(claims: pd.DataFrame) -> str:
    notes = claims.loc[claims["claim_id"] == E5_GRID_CLAIM, "note"]
    return str(notes.iloc[0]).strip().rstrip(".") if len(notes) else ""


def _grid_sentence(view: E5View, claims: pd.DataFrame) -> str:
    cells, wrong = len(view.grid), view.disagreeing
    if not wrong:
        return f"All {cells} cells agree: the formula gives every measured interval.\n"
    text = (
        f"**{cells - len(wrong)} of {cells} cells agree.** The {len(wrong)} marked {DISAGREES} "
        f"are {_cells_list(wrong)}."
    )
    note = _grid_claim_note(claims)
    if note:
        text += f" As the {E5_GRID_CLAIM} claim notes: {note}."
    return text + "\n"


def _first_section(view: E5View) -> str:
    measured: dict[str, str] = {"": "first compaction, measured"}
    formula: dict[str, str] = {"": "ceil((trigger + 1) / 2)"}
    wrong = 0
    for trigger in view.triggers:
        cells = [c for c in view.grid if c.trigger == trigger]
        firsts = sorted({"-" if c.first is None else str(c.first) for c in cells}, key=_number)
        formulas = sorted({str(c.first_formula) for c in cells}, key=_number)
        mismatched = [c for c in cells if c.first != c.first_formula]
        wrong += len(mismatched)
        measured[str(trigger)] = ",".join(firsts) + (f" {DISAGREES}" if mismatched else "")
        formula[str(trigger)] = ",".join(formulas)
    frame = pd.DataFrame([measured, formula]).rename(columns={"": "trigger"})
    keep_free = all(len({c.first for c in view.grid if c.trigger == t}) == 1 for t in view.triggers)
    cells = len(view.grid)
    lead = (
        f"The first compaction came in round ceil((trigger + 1) / 2) in all {cells} cells"
        if not wrong
        else f"The first compaction came in round ceil((trigger + 1) / 2) in {cells - wrong} of "
        f"{cells} cells ({DISAGREES} marks a trigger where some keep differs)"
    )
    lead += ", whatever the keep." if keep_free else "."
    return f"{lead}\n\n" + markdown_table(frame)


def _number(text: str) -> tuple[int, str]:
    return (int(text), "") if text.isdigit() else (1_000_000, text)


def _cadence_section(view: E5View, claims: pd.DataFrame) -> str:
    rows = [
        {"trigger": t, **{f"keep {k}": _grid_text(view.cell(t, k)) for k in view.keeps}}
        for t in view.triggers
    ]
    return "\n".join(
        [
            "### Compaction cadence: trigger × keep\n",
            "Rounds between two compactions of a plain Q&A agent, each cell "
            "`measured / formula`, the formula being the article's "
            f"ceil((trigger − keep − 1) / 2); {DISAGREES} marks a cell where they disagree, "
            "a blank cell was not run (keep ≥ trigger). The heat map is "
            "[E5_cadence.png](E5_cadence.png).\n",
            markdown_table(pd.DataFrame(rows)),
            _grid_sentence(view, claims),
            "### First compaction\n",
            _first_section(view),
        ]
    )


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _tool_heavy_section(view: E5View) -> str:
    heavy = view.tool_heavy
    befores = [str(c.before_request) for c in heavy.compactions if c.before_request is not None]
    tools = ", ".join(f"{name} × {n}" for name, n in Counter(heavy.tool_calls).items())
    before = "request" if len(befores) == 1 else "requests"
    parts = [
        "### Several tool rounds in one call\n",
        f"One call made {len(heavy.tool_calls)} tool calls ({tools}) over {heavy.requests} "
        f"model requests and compacted {len(heavy.compactions)} times inside it"
        + (f", before {before} {_and_list(befores)}" if befores else "")
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


def _large_result_section(view: E5View) -> str:
    big = view.large_result
    rows = [
        ("tool result", f"{big.original_chars:,} characters"),
        ("offloaded to", f"`{big.offloaded_to}`"),
        ("preview kept in context", f"{big.preview_chars:,} characters"),
        ("preview holds the first 2,000 characters", _yes(big.preview_has_head)),
        ("preview holds the last 2,000 characters", _yes(big.preview_has_tail)),
        ("read_file gives the full text back", _yes(big.read_file_restores_text)),
        ("read_file's result", f"{big.read_file_result_chars:,} characters"),
        ("read_file's result offloaded again", _yes(big.read_file_result_offloaded)),
    ]
    frame = pd.DataFrame(rows, columns=["", "value"])
    return "### A large tool result\n\n" + markdown_table(frame)


def _failures_section(view: E5View) -> str:
    f = view.failures
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


def _flush_order_section(view: E5View) -> str:
    rows = [
        {
            "order": o.order,
            "maintenance": o.maintenance,
            "MEMORY.md": "present" if o.memory_exists else "absent",
            "daily files": o.daily_files,
            "log line": o.log_line,
        }
        for o in view.flush_order
    ]
    if not rows:
        return "### Memory flush and maintenance order\n\n_Not recorded._\n"
    return (
        "### Memory flush and maintenance order\n\n"
        "One conversation, then close, with the background maintenance (consolidation into "
        "MEMORY.md) run before the memory flush (`maintenance_first`, the article's case) or "
        "after it (`flush_first`):\n\n" + markdown_table(pd.DataFrame(rows))
    )


def _fallback_section(view: E5View) -> str:
    fields = (
        ("context window", lambda p: f"{p.window:,}"),
        ("token trigger", lambda p: f"{p.trigger_tokens:,}"),
        ("keep tokens", lambda p: f"{p.keep_tokens:,}"),
        ("keep messages", lambda p: f"{p.keep_messages:,}"),
        ("explanation", lambda p: p.explanation),
    )
    rows = [{"": name, **{p.profile: show(p) for p in view.fallback}} for name, show in fields]
    if not view.fallback:
        return "### Thresholds for an unknown window\n\n_Not recorded._\n"
    return (
        "### Thresholds for an unknown window\n\n"
        "`deepseek-flash` with the default compaction config, resolved with each model-window "
        "table:\n\n" + markdown_table(pd.DataFrame(rows))
    )


def _e5_section(view: E5View, claims: pd.DataFrame) -> str:
    return "\n".join(
        [
            _cadence_section(view, claims),
            _tool_heavy_section(view),
            _large_result_section(view),
            _failures_section(view),
            _flush_order_section(view),
            _fallback_section(view),
        ]
    )


def flat_text(text: str, limit: int) -> str:
    """``text`` on one line with its line breaks shown as ``⏎``, cut to ``limit`` with ``…``."""
    marked = re.sub(r"\r\n|\r|\n", NEWLINE_MARK, str(text))
    return shorten(marked, limit)


def _percent(share: float | None, digits: int) -> str:
    return "—" if share is None else f"{share:.{digits}%}"


def _count(value: int | None) -> str:
    return "—" if value is None else str(value)


def _flag(value: bool | None) -> str:
    return "—" if value is None else _yes(value)


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
            **{r.title: _yes(name in r.facts_kept) for r in view.engines},
        }
        for name, value in view.facts
    ]
    return markdown_table(pd.DataFrame(rows))


def _surface_op_text(op: SurfaceOp | None) -> str:
    if op is None:
        return "—"
    if op.start is None or op.end is None:
        return op.op
    return f"{op.op} {op.start}..{op.end}"


def _events_table(run: EngineRun) -> str:
    if not run.events:
        return "_No events were appended._\n"
    with_sources = any(e.sources is not None for e in run.events)
    rows = []
    for event in run.events:
        row = {
            "seq": event.seq,
            "type": event.type,
            "surface op": _surface_op_text(event.surface_op),
        }
        if with_sources:
            row["sources"] = ", ".join(map(str, event.sources or ())) or "—"
        rows.append(row)
    return markdown_table(pd.DataFrame(rows))


def _events_section(view: E4View) -> str:
    parts = [
        "### Events each compaction appended\n",
        "Each engine compacted its own copy of the conversation's event log; these are the "
        "events that compaction appended. A replace covers surface positions start..end, both "
        "included; sources are the seqs a replace cites.\n",
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
    return intro + "\n" + markdown_table(pd.DataFrame(rows))


def _summaries_section(view: E4View) -> str:
    parts = ["### The summaries\n"]
    for run in view.engines:
        parts += [
            f"#### {run.title} ({run.summary_chars} characters)\n",
            fence(run.summary, "text") if run.summary else "_No summary._\n",
        ]
    return "\n".join(parts)


def _e4_section(view: E4View) -> str:
    names = _and_list([r.title for r in view.engines])
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


def _scalar_fields(data: Mapping[str, Any]) -> pd.DataFrame:
    scalars = sorted(
        (str(k), v) for k, v in data.items() if v is None or isinstance(v, str | int | float | bool)
    )
    return pd.DataFrame(
        [{"field": k, "value": shorten(dump_json(v).strip(), 200)} for k, v in scalars],
        columns=["field", "value"],
    )


def _generic_section(doc: ExperimentDoc, reason: str) -> str:
    parts = [f"_Shown as recorded: {reason}._\n"]
    if doc.data is not None:
        scalars = _scalar_fields(doc.data)
        if len(scalars):
            parts.append(markdown_table(scalars))
        parts.append(fence(dump_json(doc.data), "json"))
    else:
        parts.append(fence(doc.raw, "text"))
    return "\n".join(parts)


def _measurements(doc: ExperimentDoc, view: View | None, reason: str, claims: pd.DataFrame) -> str:
    if isinstance(view, E5View):
        return _e5_section(view, claims)
    if isinstance(view, E4View):
        return _e4_section(view)
    if isinstance(view, E1View):
        return _e1_section(view)
    if isinstance(view, E3View):
        return _e3_section(view)
    if isinstance(view, E2View):
        return _e2_section(view)
    return _generic_section(doc, reason)


def _config_line(data: Mapping[str, Any] | None) -> str:
    config = (data or {}).get("config")
    if not isinstance(config, Mapping) or not config:
        return ""
    pairs = ", ".join(f"`{k}` = {dump_json(v).strip()}" for k, v in config.items())
    return f"**Config:** {pairs}\n\n"


def experiment_page(
    doc: ExperimentDoc,
    view: View | None,
    reason: str,
    claims: pd.DataFrame,
    provenance: list[ProvenanceRow],
) -> str:
    """``<ID>.md``: title, source, the experiment's claims, then what it measured.

    ``view`` and ``reason`` come from :func:`.views.read_view`; without a view the measurements
    are rendered generically, saying ``reason``.
    """
    title = experiment_title(doc.id, doc.data)
    own = claims.loc[claims["experiment"] == doc.id, PAGE_CLAIM_COLUMNS]
    claims_text = markdown_table(own) if len(own) else "_No claims recorded._\n"
    return "\n".join(
        [
            f"# {doc.id}" + (f": {title}" if title else "") + "\n",
            _source_section([r for r in provenance if r.experiment == doc.id]),
            f"Data: [{doc.id}.json]({doc.id}.json) · all claims: [claims.md](claims.md) · "
            "report: [index.html](index.html)\n",
            "## Claims\n",
            claims_text,
            "## Measurements\n",
            _config_line(doc.data) + _measurements(doc, view, reason, own),
        ]
    )
