"""``index.html``: one self-contained page (inline CSS and JS, plots as data URIs), rendered with
Jinja2 from ``templates/index.html.j2``, which inlines ``templates/index.css`` and
``templates/index.js``.

The page answers first, and keeps the detail behind links: at its top the links to the
mutation matrix's page (:mod:`.mutations`) and the claims table's filter (status, kind,
experiment, model); then a verdict matrix (experiment × recorded model, claims that match and
differ, each cell linking to the experiment's section) and one sentence per experiment with
the main causes of what differs (:mod:`.verdicts`). Then every claim once, in one table
grouped by experiment: the claim, the article's value and each model's (cut short; whole on
the claim's evidence page, :mod:`.evidence`, which its id links to). Then one section per
experiment, in the order of :data:`lab.registry.EXPERIMENTS` (then any other
experiment that left claims or a JSON): what it tests (:func:`.experiments.about`), its
verdict, a link to its claims in the table and to the evidence of those that differ, its
plots and its cassettes' provenance.

This module gathers the intro, the verdicts and the table; :mod:`.sections` builds the
sections and their claim rows. Every text reaches the template as a plain
string (Jinja2 escapes it) or as :class:`markupsafe.Markup` made by :func:`.glossary.gloss_html`
(escaped there), so nothing unescaped reaches the page. A template engine keeps the page's
structure in one readable file instead of string concatenation spread over functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from lab.claims import REASON_CLASSES
from lab.registry import EXPERIMENTS
from lab.report.evidence import evidence_href
from lab.report.glossary import SOURCES
from lab.report.markdown import and_list, short_sha, shorten
from lab.report.plots import PLOT_FONT, Plot
from lab.report.sections import (
    SHOWN,
    ClaimRow,
    Section,
    anchor,
    label,
    sections,
    table_models,
)
from lab.report.tables import (
    SCRIPTED_MODEL,
    ProvenanceRow,
    ReportInputs,
    experiment_key,
    experiment_title,
    model_order,
    recorded_models,
)
from lab.report.templating import ENVIRONMENT
from lab.report.verdicts import Verdict, plural, verdicts

__all__ = ["MATRIX_ID", "SEEDS_MODEL", "TITLE", "render_index"]

TITLE = "ctxlab: context compaction and memory, reproduced"
MATRIX_ID = "verdicts"
SEEDS_MODEL = ("deepseek-flash", "DeepSeek")
"""The model the seeds' agents ran on, and its provider."""
INTRO = (
    "ctxlab re-runs the experiments of two published Chinese articles on how an agent keeps its "
    "context window in bounds: compaction replaces old messages with one summary, and memory "
    "moves lasting facts into Markdown files. Each of the articles' claims is set beside the "
    "value measured here and marked match or differs."
)

_ENVIRONMENT = ENVIRONMENT


@dataclass(frozen=True)
class MatrixRow:
    experiment: str
    anchor: str
    title: str
    scripted: bool
    cells: tuple[tuple[int, int] | None, ...]
    sentence: str


@dataclass(frozen=True)
class TableGroup:
    """One experiment's claims in the claims table."""

    id: str
    anchor: str
    title: str
    rows: tuple[ClaimRow, ...]


def _order(inputs: ReportInputs) -> list[str]:
    """Experiments in the registry's order, then any other with a JSON or claims."""
    present = {doc.id for doc in inputs.experiments} | set(inputs.claims["experiment"])
    known = [e for e in EXPERIMENTS if e in present]
    return known + sorted(present - set(known), key=experiment_key)


def _matrix(found: Sequence[Verdict], columns: Sequence[str]) -> list[MatrixRow]:
    rows = []
    for verdict in found:
        cells = tuple(
            (c.matched, c.differed) if (c := verdict.cells.get(m)) is not None else None
            for m in columns
        )
        if verdict.scripted:
            cell = verdict.cells[SCRIPTED_MODEL]
            cells = ((cell.matched, cell.differed),)
        rows.append(
            MatrixRow(
                verdict.experiment,
                anchor(verdict.experiment),
                verdict.title,
                verdict.scripted,
                cells,
                verdict.sentence(),
            )
        )
    return rows


def _providers(claims: pd.DataFrame, provenance: Sequence[ProvenanceRow]) -> list[str]:
    """``<provider> (<server>): <model>, <model>`` for each provider of the recorded sets."""
    sources = claims.loc[claims["source"].str.contains("/", regex=False), ["source", "model"]]
    by_provider: dict[str, list[str]] = {}
    for source, model in sources.drop_duplicates().itertuples(index=False):
        by_provider.setdefault(str(source).split("/", 1)[0], []).append(str(model))
    servers: dict[str, list[str]] = {}
    for row in provenance:
        if row.provider and row.server:
            servers.setdefault(row.provider, []).append(row.server)
    lines = []
    for provider, models in by_provider.items():
        named = sorted(set(servers.get(provider, [])))
        server = f" ({', '.join(named)})" if named else ""
        lines.append(f"{provider}{server}: {and_list(sorted(set(models), key=model_order))}")
    return lines


def _models_sentence(claims: pd.DataFrame, provenance: Sequence[ProvenanceRow]) -> str:
    model, provider = SEEDS_MODEL
    seeds = f"The seeds' agents ran on {model} ({provider})."
    lines = _providers(claims, provenance)
    if not lines:
        return seeds + " Every experiment here runs with scripted models."
    count = len(recorded_models(claims))
    recorded = (
        f" The recorded experiments replay {plural(count, 'set')} of cassettes, recorded from "
        + "; from ".join(lines)
        + "."
    )
    differs = (
        f" A claim that depends on the model's answers can differ because that model is not "
        f"{model}; each differing claim names its cause."
    )
    scripted = (
        " The other experiments use scripted models."
        if (claims["model"] == SCRIPTED_MODEL).any()
        else ""
    )
    return seeds + recorded + scripted + differs


def _headline(found: Sequence[Verdict]) -> dict[str, int]:
    return {status: sum(v.count(status) for v in found) for status in ("match", "differs", "mixed")}


def _options(claims: pd.DataFrame, column: str, order: Sequence[str] = ()) -> list[str]:
    values = [str(v) for v in dict.fromkeys(claims[column]) if str(v)] if column in claims else []
    rank = {v: i for i, v in enumerate(order)}
    return sorted(values, key=lambda v: (rank.get(v, len(rank)), values.index(v)))


def render_index(
    inputs: ReportInputs,
    plots: Sequence[Plot],
    provenance: Sequence[ProvenanceRow],
    generic: Mapping[str, str],
    mutations_page: str = "",
) -> str:
    """The whole ``index.html``; ``generic`` maps experiment ids to why their page is generic;
    ``mutations_page`` is the mutation matrix's page to link from the top (empty without
    ``mutations.csv``)."""
    claims = inputs.claims
    order = _order(inputs)
    titles = {e: experiment_title(e, None) for e in order}
    titles |= {doc.id: experiment_title(doc.id, doc.data) for doc in inputs.experiments}
    found = verdicts(claims, titles, order)
    columns = recorded_models(claims) or [SCRIPTED_MODEL]
    shown = sections(
        inputs, order, {v.experiment: v for v in found}, plots, provenance, generic, evidence_href
    )
    context = {
        "title": TITLE,
        "intro": INTRO,
        "models_sentence": _models_sentence(claims, provenance),
        "headline": _headline(found),
        "claim_count": sum(len(v.claims) for v in found),
        "matrix_id": MATRIX_ID,
        "columns": columns,
        "matrix": _matrix(found, columns),
        "sections": shown,
        "mutations_page": mutations_page,
        "sources": SOURCES,
        **_table_context(claims, order, shown),
        "plot_font": PLOT_FONT,
        "short_sha": short_sha,
        "shorten": shorten,
    }
    return _ENVIRONMENT.get_template("index.html.j2").render(context)


def _table_context(
    claims: pd.DataFrame, order: Sequence[str], shown: Sequence[Section]
) -> dict[str, object]:
    """The claims table's part of the page: its groups of rows, columns, reasons and filters."""
    extras = [c for c in claims.columns if c not in SHOWN]
    models = table_models(claims)
    return {
        "reason_classes": REASON_CLASSES,
        "used_reasons": sorted({str(r) for r in claims.get("reason_class", []) if r}),
        "table_models": models,
        "value_columns": [m for m in models if m != SCRIPTED_MODEL] or models,
        "table_groups": [TableGroup(s.id, s.anchor, s.title, s.rows) for s in shown if s.rows],
        "extras": [label(c) for c in extras],
        "filters": {
            "status": ["match", "differs", "mixed"],
            "kind": _options(claims, "kind"),
            "experiment": _options(claims, "experiment", order),
            "model": models,
        },
    }
