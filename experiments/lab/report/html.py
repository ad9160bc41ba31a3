"""``index.html``: one self-contained page (inline CSS and JS, plots as data URIs), rendered with
Jinja2 from ``templates/index.html.j2``.

The page answers first: a verdict matrix (experiment × recorded model, claims that match and
differ, each cell linking to the experiment's section) and one sentence per experiment with
the main causes of what differs (:mod:`.verdicts`). Then one section per experiment, in the
order of :data:`experiments.lab.registry.EXPERIMENTS` (then any other experiment that left claims
or a JSON): what it tests (:func:`.experiments.about`), its plots, its claims (the claim, the
article's value and each model's, the note folded away, boilerplate said once by
:mod:`.boilerplate`) and its cassettes' provenance. The full claims table closes the page,
filterable by status, kind, experiment and model.

This module gathers the intro, the verdicts and the full table; :mod:`.sections` builds the
sections. Every text reaches the template as a plain
string (Jinja2 escapes it) or as :class:`markupsafe.Markup` made by :func:`.glossary.gloss_html`
(escaped there), so nothing unescaped reaches the page. A template engine keeps the page's
structure in one readable file instead of string concatenation spread over functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import jinja2
import pandas as pd
from markupsafe import Markup

from experiments.lab.claims import REASON_CLASSES
from experiments.lab.registry import EXPERIMENTS
from experiments.lab.report.boilerplate import split_notes
from experiments.lab.report.glossary import SOURCES
from experiments.lab.report.markdown import and_list, short_sha, shorten
from experiments.lab.report.plots import PLOT_FONT, Plot
from experiments.lab.report.sections import SHOWN, anchor, label, markup, sections
from experiments.lab.report.style import CSS, SCRIPT
from experiments.lab.report.tables import (
    SCRIPTED_MODEL,
    ProvenanceRow,
    ReportInputs,
    experiment_key,
    experiment_title,
    recorded_models,
)
from experiments.lab.report.verdicts import Verdict, claim_verdicts, plural, verdicts

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

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("experiments.lab.report", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


@dataclass(frozen=True)
class MatrixRow:
    experiment: str
    anchor: str
    title: str
    scripted: bool
    cells: tuple[tuple[int, int] | None, ...]
    sentence: str


@dataclass(frozen=True)
class TableRow:
    """One row of ``claims.csv`` in the full table."""

    row: Mapping[str, str]
    group: str
    note: Markup
    claim: Markup
    article: Markup
    value: Markup
    extras: tuple[tuple[str, Markup], ...] = field(default=())


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
        lines.append(f"{provider}{server}: {and_list(list(dict.fromkeys(models)))}")
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


def _table_rows(
    claims: pd.DataFrame, extras: Sequence[str]
) -> tuple[list[TableRow], tuple[str, ...]]:
    """The full table's rows, each note without what :mod:`.boilerplate` says once (returned
    too)."""
    groups = {(c.experiment, c.claim_id): c.status for c in claim_verdicts(claims)}
    records = claims.to_dict("records")
    split = split_notes([str(r["note"]) for r in records])
    rows = [
        TableRow(
            {k: str(v) for k, v in row.items()},
            groups[(row["experiment"], row["claim_id"])],
            markup(note),
            markup(str(row["claim"])),
            markup(str(row["article_value"]) or "—"),
            markup(str(row["reproduced_value"])),
            tuple((label(c), markup(str(row[c]))) for c in extras),
        )
        for row, note in zip(records, split.notes, strict=True)
    ]
    return rows, split.once


def _options(claims: pd.DataFrame, column: str, order: Sequence[str] = ()) -> list[str]:
    values = [str(v) for v in dict.fromkeys(claims[column]) if str(v)] if column in claims else []
    rank = {v: i for i, v in enumerate(order)}
    return sorted(values, key=lambda v: (rank.get(v, len(rank)), values.index(v)))


def render_index(
    inputs: ReportInputs,
    plots: Sequence[Plot],
    provenance: Sequence[ProvenanceRow],
    generic: Mapping[str, str],
    mutations: str = "",
) -> str:
    """The whole ``index.html``; ``generic`` maps experiment ids to why their page is generic;
    ``mutations`` is the mutation matrix's section (empty without ``mutations.csv``)."""
    claims = inputs.claims
    order = _order(inputs)
    titles = {e: experiment_title(e, None) for e in order}
    titles |= {doc.id: experiment_title(doc.id, doc.data) for doc in inputs.experiments}
    found = verdicts(claims, titles, order)
    columns = recorded_models(claims) or [SCRIPTED_MODEL]
    table = _table_context(claims, order)
    context = {
        "title": TITLE,
        "css": Markup(CSS),
        "script": Markup(SCRIPT),
        "intro": INTRO,
        "models_sentence": _models_sentence(claims, provenance),
        "headline": _headline(found),
        "claim_count": sum(len(v.claims) for v in found),
        "matrix_id": MATRIX_ID,
        "columns": columns,
        "matrix": _matrix(found, columns),
        "sections": sections(
            inputs, order, {v.experiment: v for v in found}, plots, provenance, generic
        ),
        "mutations": Markup(mutations),
        "sources": SOURCES,
        **table,
        "plot_font": PLOT_FONT,
        "short_sha": short_sha,
        "shorten": shorten,
    }
    return _ENVIRONMENT.get_template("index.html.j2").render(context)


def _table_context(claims: pd.DataFrame, order: Sequence[str]) -> dict[str, object]:
    """The claims table's part of the page: its rows, extra columns, reasons and filters."""
    extras = [c for c in claims.columns if c not in SHOWN]
    table_rows, table_once = _table_rows(claims, extras)
    return {
        "reason_classes": REASON_CLASSES,
        "used_reasons": sorted({str(r) for r in claims.get("reason_class", []) if r}),
        "table_rows": table_rows,
        "table_once": table_once,
        "extras": [label(c) for c in extras],
        "filters": {
            "status": ["match", "differs", "mixed"],
            "kind": _options(claims, "kind"),
            "experiment": _options(claims, "experiment", order),
            "model": _options(claims, "model"),
        },
    }
