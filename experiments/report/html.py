"""``index.html``: one self-contained page (inline CSS and JS, plots as data URIs).

Renders what :mod:`.tables` computed; every piece of text goes through :func:`html.escape`.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from html import escape

import pandas as pd

from experiments.report.markdown import short_sha, shorten
from experiments.report.plots import DPI, PLOT_SIZES, Plot
from experiments.report.tables import (
    ClaimCounts,
    ProvenanceRow,
    ReportInputs,
    count_claims,
    experiment_key,
    experiment_title,
)

__all__ = ["FILTER_ID", "render_index"]

FILTER_ID = "experiment-filter"
TITLE = "ctxlab: context compaction and memory, reproduced"
INTRO = (
    "ctxlab re-runs the experiments of a published Chinese article on AgentScope Java v2 "
    "(lesson 10: compaction rewrites history, memory moves facts), which studies how an agent "
    "keeps its context window in bounds: compaction replaces old messages with one summary "
    "without ever separating a tool call from its result, and memory moves lasting facts into "
    "Markdown files on disk. Every experiment here replays offline, from a scripted model or "
    "from a real model's replies recorded in cassettes, and each of the article's claims is set "
    "beside the value ctxlab measured, marked match or differs, with the reason when it differs."
)

CSS = """
:root { --ink: #1f2328; --muted: #59636e; --line: #d8dee4; --head: #f3f5f7;
  --match: #1a7f37; --match-bg: #e9f7ee; --differs: #9a5b00; --differs-bg: #fff4de; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; line-height: 1.55;
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans",
  "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 2rem 1.5rem 4rem; }
h1 { font-size: 1.9rem; line-height: 1.25; margin: 0 0 .75rem; }
h2 { font-size: 1.35rem; margin: 2.5rem 0 .75rem; padding-bottom: .3rem;
  border-bottom: 1px solid var(--line); }
p.intro { max-width: 72ch; color: #30363d; }
p.summary { font-size: 1.1rem; font-weight: 600; margin: 1rem 0; }
p.summary .match { color: var(--match); } p.summary .differs { color: var(--differs); }
nav a { margin-right: 1rem; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { border-bottom: 1px solid var(--line); padding: .45rem .6rem; text-align: left;
  vertical-align: top; }
td { overflow-wrap: anywhere; }
th { background: var(--head); font-weight: 600; white-space: nowrap; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: .85em; }
.claim-id { display: block; font-weight: 600; white-space: nowrap; }
.source { display: block; color: var(--muted); font-size: .8rem; }
.claim td.note { color: #30363d; font-size: .85rem; }
tr.status-match { box-shadow: inset 4px 0 0 var(--match); }
tr.status-differs { box-shadow: inset 4px 0 0 var(--differs); background: #fffbf2; }
.badge { display: inline-block; padding: .05rem .55rem; border-radius: 999px;
  font-size: .8rem; font-weight: 600; white-space: nowrap; overflow-wrap: normal; }
.status-match .badge { color: var(--match); background: var(--match-bg); }
.status-differs .badge { color: var(--differs); background: var(--differs-bg); }
.filter { display: flex; gap: .75rem; align-items: center; margin: .5rem 0 .75rem; }
.filter select { font: inherit; padding: .2rem .4rem; }
.filter .shown { color: var(--muted); font-size: .9rem; }
figure { margin: 1.5rem 0 2rem; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: .9rem; max-width: 80ch; margin-top: .4rem; }
footer { margin-top: 3rem; color: var(--muted); font-size: .85rem; }
"""

SCRIPT = """
(function () {
  var select = document.getElementById("experiment-filter");
  var rows = document.querySelectorAll("#claims-table tbody tr");
  var shown = document.getElementById("claims-shown");
  function apply() {
    var count = 0;
    rows.forEach(function (row) {
      row.hidden = select.value !== "all" && row.dataset.experiment !== select.value;
      if (!row.hidden) { count += 1; }
    });
    shown.textContent = count + " of " + rows.length + " claims shown";
  }
  select.addEventListener("change", apply);
  apply();
})();
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _summary(counts: ClaimCounts) -> str:
    line = _e(counts.line())
    line = line.replace(
        f"{counts.matched} match", f'<span class="match">{counts.matched} match</span>'
    )
    return line.replace(
        f"{counts.differed} differ", f'<span class="differs">{counts.differed} differ</span>', 1
    )


def _filter(claims: pd.DataFrame) -> str:
    ids = sorted(set(claims["experiment"]), key=experiment_key)
    options = [f'<option value="all">all experiments ({len(claims)})</option>']
    for experiment in ids:
        n = int((claims["experiment"] == experiment).sum())
        options.append(f'<option value="{_e(experiment)}">{_e(experiment)} ({n})</option>')
    return (
        f'<div class="filter"><label for="{FILTER_ID}">Show</label>'
        f'<select id="{FILTER_ID}">{"".join(options)}</select>'
        f'<span class="shown" id="claims-shown">{len(claims)} of {len(claims)} claims shown'
        "</span></div>"
    )


def _claim_row(row: Mapping[str, str]) -> str:
    status = "match" if row["status"] == "match" else "differs"
    return (
        f'<tr class="claim status-{status}" data-experiment="{_e(row["experiment"])}">'
        f'<td><span class="claim-id">{_e(row["claim_id"])}</span>{_e(row["claim"])}'
        f'<span class="source">kind: {_e(row.get("kind", ""))} · source: {_e(row["source"])}'
        "</span></td>"
        f"<td>{_article_cell(row)}</td><td>{_e(row['reproduced_value'])}</td>"
        f'<td><span class="badge">{_e(row["status"])}</span></td>'
        f'<td class="note">{_e(row["note"])}</td></tr>'
    )


def _article_cell(row: Mapping[str, str]) -> str:
    """The article's value with the seed passage under it; ``ctxlab`` rows have no value."""
    value = row["article_value"] or "— (our own check)"
    cited = row.get("article_source", "")
    return _e(value) + (f'<span class="source">{_e(cited)}</span>' if cited else "")


def _claims_section(claims: pd.DataFrame) -> str:
    rows = "\n".join(_claim_row(r) for r in claims.to_dict("records"))
    return (
        '<section id="claims"><h2>Claims</h2>\n'
        + _filter(claims)
        + '\n<table id="claims-table"><thead><tr><th style="width:34%">Claim</th>'
        '<th style="width:15%">Article</th><th style="width:15%">Reproduced</th>'
        "<th>Status</th><th>Note</th></tr></thead>\n<tbody>\n" + rows + "\n</tbody></table>\n"
        '<p><a href="claims.md">claims.md</a> · <a href="claims.csv">claims.csv</a></p>'
        "</section>"
    )


def _figure(plot: Plot) -> str:
    width, height = (round(v * DPI) for v in PLOT_SIZES[plot.name])
    data = base64.b64encode(plot.png).decode("ascii")
    return (
        f'<figure id="plot-{_e(plot.name)}"><img src="data:image/png;base64,{data}" '
        f'width="{width}" height="{height}" alt="{_e(plot.caption)}">'
        f"<figcaption>{_e(plot.caption)}</figcaption></figure>"
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
        '<section id="experiments"><h2>Experiments</h2>\n<table><thead><tr><th>Id</th>'
        '<th>What it shows</th><th class="num">Claims matching</th><th>Page</th><th>Data</th>'
        "</tr></thead>"
        "\n<tbody>\n" + "\n".join(rows) + "\n</tbody></table></section>"
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
        f"{_cell(row.recorded_at, row.recorded_at)}"
        f'<td class="num">{_e(row.requests) or "—"}</td></tr>'
    )


def _provenance_section(rows: Sequence[ProvenanceRow]) -> str:
    return (
        '<section id="provenance"><h2>Provenance</h2>\n<p>Where each experiment\'s values come '
        "from: a scripted model, or a recorded cassette of a real model.</p>\n<table "
        'id="provenance-table"><thead><tr><th>Experiment</th><th>Source</th><th>Provider</th>'
        "<th>Model</th><th>Model sha256</th><th>Server</th><th>Recorded at</th>"
        '<th class="num">Requests</th></tr></thead>\n<tbody>\n'
        + "\n".join(_provenance_row(r) for r in rows)
        + "\n</tbody></table></section>"
    )


def render_index(
    inputs: ReportInputs,
    plots: Sequence[Plot],
    provenance: Sequence[ProvenanceRow],
    generic: Mapping[str, str],
) -> str:
    """The whole ``index.html``; ``generic`` maps experiment ids to why their page is generic."""
    counts = count_claims(inputs.claims)
    figures = "\n".join(_figure(p) for p in plots) or "<p>No plots: no plottable experiment.</p>"
    body = "\n".join(
        [
            f"<header><h1>{_e(TITLE)}</h1>",
            f'<p class="intro">{_e(INTRO)}</p>',
            f'<p class="summary">{_summary(counts)}</p>',
            '<nav><a href="#claims">Claims</a><a href="#plots">Plots</a>'
            '<a href="#experiments">Experiments</a><a href="#provenance">Provenance</a></nav>'
            "</header>",
            _claims_section(inputs.claims),
            f'<section id="plots"><h2>Plots</h2>\n{figures}\n</section>',
            _experiments_section(inputs, generic),
            _provenance_section(provenance),
            "<footer>Built from <code>claims.csv</code> and the experiments' JSON files in this "
            "folder; each experiment's page and data are linked above.</footer>",
        ]
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(TITLE)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
        f"{body}\n</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )
