"""``index.html``: one self-contained page (inline CSS and JS, plots as data URIs).

Renders what :mod:`.tables` computed; every piece of text goes through :func:`html.escape`.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from html import escape

import pandas as pd

from experiments.report.glossary import SOURCES, gloss_html
from experiments.report.markdown import short_sha, shorten
from experiments.report.plots import DPI, PLOT_FONT, PLOT_SIZES, Plot
from experiments.report.style import CSS, SCRIPT
from experiments.report.tables import (
    ClaimCounts,
    ProvenanceRow,
    ReportInputs,
    count_claims,
    experiment_key,
    experiment_title,
    recorded_models,
)

__all__ = ["FILTER_ID", "render_index"]

FILTER_ID = "experiment-filter"
TITLE = "ctxlab: context compaction and memory, reproduced"
INTRO = (
    "ctxlab re-runs the experiments of two published Chinese articles on how an agent keeps its "
    "context window in bounds: compaction replaces old messages with one summary without ever "
    "separating a tool call from its result, and memory moves lasting facts into Markdown files "
    "on disk. Every experiment here replays offline, from a scripted model or from a real "
    "model's replies recorded in cassettes, and each of the articles' claims is set beside the "
    "value ctxlab measured, marked match or differs, with the reason when it differs."
)
STRUCTURAL_NOTE = "structural: decided by the harness"
"""What a claim's note says (anywhere in it, not only at its start) when the harness, not the
model, decides it."""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _sources() -> str:
    named = [
        f'{_e(role)}, <cite lang="zh">{_e(title)}</cite> '
        f'<span class="gloss">(“{_e(english)}”)</span>'
        for role, title, english in SOURCES
    ]
    return f'<p class="sources">It reproduces {named[0]}, and {named[1]}.</p>'


def model_dependent(claims: pd.DataFrame) -> pd.Series:
    """Which claims depend on what a model said: those from a cassette whose note does not call
    them structural (``kind`` says whether a seed states the value, not who decides it)."""
    structural = claims["note"].str.contains(STRUCTURAL_NOTE, regex=False)
    return (claims["source"] != "scripted") & ~structural


def _models(claims: pd.DataFrame, provenance: Sequence[ProvenanceRow]) -> str:
    models = sorted({f"{r.provider}/{r.model}" for r in provenance if r.model})
    if not models:
        return ""
    local = all(m.startswith("local/") for m in models)
    if len(models) > 1:
        recorded = f"{len(models)} local models" if local else f"{len(models)} recorded models"
    else:
        recorded = "a 1.5B local model" if local and "1.5b" in models[0] else "the recorded model"
    counts = count_claims(claims[model_dependent(claims)])
    return (
        '<p class="models">The model-dependent claims (what a model answers, what its summaries '
        f"keep) were recorded from {recorded} ({_e(', '.join(models))}) rather than the "
        "articles' <code>deepseek-flash</code>, and they differ wherever that model behaves "
        f"differently: {counts.differed} of the {counts.total} model-dependent claims differ. "
        "Structural claims (when compaction fires, what it keeps, which files exist) are decided "
        "by the harness whatever the model says; each claim's note says which it is and why it "
        "differs.</p>"
    )


def _summary(counts: ClaimCounts) -> str:
    line = _e(counts.line())
    line = line.replace(
        f"{counts.matched} match", f'<span class="match">{counts.matched} match</span>'
    )
    return line.replace(
        f"{counts.differed} differ", f'<span class="differs">{counts.differed} differ</span>', 1
    )


def _filter(claims: pd.DataFrame, total: int) -> str:
    ids = sorted(set(claims["experiment"]), key=experiment_key)
    options = [f'<option value="all">all experiments ({total})</option>']
    for experiment in ids:
        n = int(claims.loc[claims["experiment"] == experiment, "claim_id"].nunique())
        options.append(f'<option value="{_e(experiment)}">{_e(experiment)} ({n})</option>')
    return (
        f'<div class="filter"><label for="{FILTER_ID}">Show</label>'
        f'<select id="{FILTER_ID}">{"".join(options)}</select>'
        f'<span class="shown" id="claims-shown">{total} of {total} claims shown'
        "</span></div>"
    )


CLAIM_CELL = ("experiment", "claim_id", "claim", "source", "kind", "article_source")
"""Columns shown in the first cell (the seed citation under the article's value)."""
SHOWN = (*CLAIM_CELL, "model", "article_value", "reproduced_value", "status", "note")
"""Columns with a place of their own; any other column of the table gets a cell of its own."""
LABELS = {"note": "Note"}


def _label(column: str) -> str:
    return LABELS.get(column, column.replace("_", " ").capitalize())


def _extra_columns(claims: pd.DataFrame) -> list[str]:
    return [c for c in claims.columns if c not in SHOWN]


def _claim_groups(claims: pd.DataFrame) -> list[list[dict[str, str]]]:
    """The rows of each claim (one per model that produced it), in table order."""
    groups: dict[tuple[str, str], list[dict[str, str]]] = {}
    for row in claims.to_dict("records"):
        groups.setdefault((row["experiment"], row["claim_id"]), []).append(row)
    return list(groups.values())


def _group_status(rows: Sequence[Mapping[str, str]]) -> str:
    statuses = {"match" if r["status"] == "match" else "differs" for r in rows}
    return statuses.pop() if len(statuses) == 1 else "mixed"


def _value_cell(row: Mapping[str, str] | None, label: str, span: int = 1) -> str:
    if row is None:
        return f'<td class="absent" data-label="{_e(label)}">—</td>'
    status = "match" if row["status"] == "match" else "differs"
    spans = f' colspan="{span}"' if span > 1 else ""
    return (
        f'<td class="value status-{status}"{spans} data-label="{_e(label)}">'
        f'<span class="badge">{_e(row["status"])}</span> {gloss_html(str(row["reproduced_value"]))}'
        "</td>"
    )


def _note_cell(rows: Sequence[Mapping[str, str]]) -> str:
    if len(rows) == 1:
        text = gloss_html(str(rows[0]["note"]))
    else:
        text = "<br>".join(
            f'<span class="model">{_e(r.get("model", ""))}:</span> {gloss_html(str(r["note"]))}'
            for r in rows
            if r["note"]
        )
    return f'<td class="note" data-label="Note">{text}</td>'


def _claim_row(
    rows: Sequence[Mapping[str, str]], models: Sequence[str], extras: Sequence[str]
) -> str:
    first = rows[0]
    by_model = {r.get("model", ""): r for r in rows}
    if not models or not any(m in by_model for m in models):
        values = _value_cell(first, f"Reproduced ({first.get('model') or 'scripted'})", len(models))
    else:
        values = "".join(_value_cell(by_model.get(m), f"Reproduced ({m})") for m in models)
    sources = ", ".join(dict.fromkeys(r["source"] for r in rows))
    return (
        f'<tr class="claim status-{_group_status(rows)}" '
        f'data-experiment="{_e(first["experiment"])}">'
        f'<td><span class="claim-id">{_e(first["claim_id"])}</span>{gloss_html(first["claim"])}'
        f'<span class="source">kind: {_e(first.get("kind", ""))} · source: {_e(sources)}'
        f'</span></td><td data-label="Article">{_article_cell(first)}</td>'
        + values
        + "".join(
            f'<td data-label="{_e(_label(c))}">{gloss_html(str(first[c]))}</td>' for c in extras
        )
        + _note_cell(rows)
        + "</tr>"
    )


def _article_cell(row: Mapping[str, str]) -> str:
    """The article's value with the seed passage under it; ``ctxlab`` rows have no value."""
    value = row["article_value"] or "— (our own check)"
    cited = row.get("article_source", "")
    return gloss_html(value) + (f'<span class="source">{gloss_html(cited)}</span>' if cited else "")


def _model_span(model: str) -> str:
    return f' <span class="model">{_e(model)}</span>'


def _claims_section(claims: pd.DataFrame) -> str:
    """The claims, one row per claim; a claim recorded with several models shows each model's
    value and status side by side, one column per recorded model, and each model's note."""
    models = recorded_models(claims)
    extras = _extra_columns(claims)
    groups = _claim_groups(claims)
    rows = "\n".join(_claim_row(group, models, extras) for group in groups)
    value_heads = (
        [f'<th class="model-head">Reproduced{_model_span(m)}</th>' for m in models]
        if len(models) > 1
        else ["<th>Reproduced</th>"]
    )
    heads = (
        '<th style="width:15%">Article</th>'
        + "".join(value_heads)
        + "".join(f"<th>{_e(_label(c))}</th>" for c in extras)
    )
    return (
        '<section id="claims"><h2>Claims</h2>\n'
        + _filter(claims, len(groups))
        + '\n<table id="claims-table"><thead><tr><th style="width:30%">Claim</th>'
        + heads
        + "<th>Note</th></tr></thead>\n<tbody>\n"
        + rows
        + "\n</tbody></table>\n"
        '<p><a href="claims.md">claims.md</a> · <a href="claims.csv">claims.csv</a></p>'
        "</section>"
    )


def _figure(plot: Plot) -> str:
    width, height = (round(v * DPI) for v in PLOT_SIZES[plot.name])
    data = base64.b64encode(plot.png).decode("ascii")
    return (
        f'<figure id="plot-{_e(plot.name)}"><div class="plot"><img '
        f'src="data:image/png;base64,{data}" width="{width}" height="{height}" '
        f'alt="{_e(plot.caption)}"></div><figcaption>{_e(plot.caption)}</figcaption></figure>'
    )


def _experiments_section(inputs: ReportInputs, generic: Mapping[str, str]) -> str:
    rows = []
    for doc in inputs.experiments:
        counts = count_claims(inputs.claims[inputs.claims["experiment"] == doc.id])
        page = f'<a href="{_e(doc.id)}.md">{_e(doc.id)}.md</a>'
        if generic.get(doc.id):
            page += f'<span class="source">generic page: {_e(generic[doc.id])}</span>'
        rows.append(
            f"<tr><td>{_e(doc.id)}</td><td>{_e(experiment_title(doc.id, doc.data))}</td>"
            f'<td class="num">{counts.matched} of {counts.total}</td><td>{page}</td>'
            f'<td><a href="{_e(doc.id)}.json">{_e(doc.id)}.json</a></td></tr>'
        )
    return (
        '<section id="experiments"><h2>Experiments</h2>\n<div class="scroll"><table><thead><tr>'
        "<th>Id</th>"
        '<th>What it shows</th><th class="num">Claims matching</th><th>Page</th><th>Data</th>'
        "</tr></thead>"
        "\n<tbody>\n" + "\n".join(rows) + "\n</tbody></table></div></section>"
    )


def _cell(text: str, shown: str, mono: bool = False) -> str:
    """A table cell showing ``shown`` with the full ``text`` as its tooltip; ``—`` when empty."""
    if not text:
        return "<td>—</td>"
    inner = f'<span class="mono">{_e(shown)}</span>' if mono else _e(shown)
    return f'<td title="{_e(text)}">{inner}</td>'


def _provenance_row(row: ProvenanceRow) -> str:
    return (
        f'<tr class="provenance" data-experiment="{_e(row.experiment)}"><td>{_e(row.experiment)}'
        f"</td>{_cell(row.source, shorten(row.source, 60))}"
        f"{_cell(row.provider, shorten(row.provider, 40))}"
        f"{_cell(row.model, shorten(row.model, 60))}"
        f"{_cell(row.model_sha256, short_sha(row.model_sha256), mono=True)}"
        f"{_cell(row.server, shorten(row.server, 60), mono=True)}"
        f"{_cell(row.params, shorten(row.params, 60), mono=True)}"
        f"{_cell(row.recorded_at, row.recorded_at)}"
        f'<td class="num">{_e(row.requests) or "—"}</td></tr>'
    )


def _provenance_section(rows: Sequence[ProvenanceRow]) -> str:
    return (
        '<section id="provenance"><h2>Provenance</h2>\n<p>Where each experiment\'s values come '
        "from: a scripted model, or a recorded cassette of a real model.</p>\n"
        '<div class="scroll"><table '
        'id="provenance-table"><thead><tr><th>Experiment</th><th>Source</th><th>Provider</th>'
        "<th>Model</th><th>Model sha256</th><th>Server</th><th>Request params</th>"
        "<th>Recorded at</th>"
        '<th class="num">Requests</th></tr></thead>\n<tbody>\n'
        + "\n".join(_provenance_row(r) for r in rows)
        + "\n</tbody></table></div></section>"
    )


def render_index(
    inputs: ReportInputs,
    plots: Sequence[Plot],
    provenance: Sequence[ProvenanceRow],
    generic: Mapping[str, str],
    mutations: str = "",
) -> str:
    """The whole ``index.html``; ``generic`` maps experiment ids to why their page is generic;
    ``mutations`` is the mutation matrix's section (empty without ``mutations.csv``)."""
    counts = count_claims(inputs.claims)
    figures = "\n".join(_figure(p) for p in plots) or "<p>No plots: no plottable experiment.</p>"
    body = "\n".join(
        [
            f"<header><h1>{_e(TITLE)}</h1>",
            f'<p class="intro">{_e(INTRO)}</p>',
            _sources(),
            _models(inputs.claims, provenance),
            f'<p class="summary">{_summary(counts)}</p>',
            '<nav><a href="#claims">Claims</a><a href="#plots">Plots</a>'
            '<a href="#experiments">Experiments</a><a href="#provenance">Provenance</a></nav>'
            "</header>",
            _claims_section(inputs.claims),
            f'<section id="plots"><h2>Plots</h2>\n{figures}\n</section>',
            _experiments_section(inputs, generic),
            mutations,
            _provenance_section(provenance),
            "<footer>Built from <code>claims.csv</code> and the experiments' JSON files in this "
            "folder; each experiment's page and data are linked above. Fonts: Chinese text uses "
            "the first CJK-capable font the reader has (Noto Sans CJK SC, Source Han Sans SC, "
            "PingFang SC, Hiragino Sans GB, Microsoft YaHei, WenQuanYi Micro Hei); the plots are "
            f"drawn in {_e(PLOT_FONT)} (bundled with matplotlib) with English text only, so they "
            "look the same everywhere.</footer>",
        ]
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(TITLE)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
        f"{body}\n</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )
