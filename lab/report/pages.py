"""Markdown pages: ``claims.md`` and one readable page per experiment (``<ID>.md``).

An experiment's page is a header, its source, its claims, then its measurements: the section
its ``experiments/<name>/page.py`` renders from its view, or, without one, the JSON as recorded.
Computes nothing of its own beyond choosing display columns.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from lab.experiment import dump_json
from lab.report.experiments import measurements_section, read_view
from lab.report.glossary import english_column
from lab.report.markdown import escape_html, fence, markdown_table, short_sha, shorten
from lab.report.tables import (
    ClaimCounts,
    ExperimentDoc,
    ProvenanceRow,
    experiment_title,
    records_frame,
    side_by_side,
)

__all__ = ["PAGE_CLAIM_COLUMNS", "claims_markdown", "experiment_page"]

PAGE_CLAIM_COLUMNS = [
    "claim_id",
    "kind",
    "claim",
    "article_value",
    "reproduced_value",
    "status",
    "reason_class",
    "article_source",
    "note",
]
"""The claims columns an experiment's page shows (its experiment and source are in the header)."""
PROVENANCE_COLUMNS = [
    "provider",
    "model",
    "model_sha256",
    "server",
    "params",
    "recorded_at",
    "requests",
]


def claims_markdown(claims: pd.DataFrame, counts: ClaimCounts) -> str:
    """``claims.md``: a title, the summary line, then every experiment's claims, the values of
    each recorded model side by side (:func:`.tables.side_by_side`)."""
    if not len(claims):
        body = "_No claims were recorded._\n"
    else:
        body = "\n".join(
            f"## {experiment}\n\n"
            + markdown_table(_english(side_by_side(own, _table_columns(own))))
            for experiment, own in claims.groupby("experiment", sort=False)
        )
    return escape_html(
        f"# Claims: the article beside ctxlab\n\n{counts.line()}\n\n{KINDS_NOTE}{MODELS_NOTE}{body}"
    )


MODELS_NOTE = (
    "`model`: the recorded model a value comes from (`scripted` when no model is involved). "
    "An experiment recorded with several models shows each model's reproduced value, status "
    "and note side by side; `claims.csv` has one row per claim per model.\n\n"
)


def _table_columns(claims: pd.DataFrame) -> list[str]:
    """The columns of ``claims`` in table order, less ``experiment`` (the section's heading),
    ``model`` (in the column headers) and ``version`` (the experiment's, for ``claims.csv``)."""
    return [c for c in claims.columns if c not in ("experiment", "model", "version")]


KINDS_NOTE = (
    "`kind`: **article** — a seed states the value (`article_source` cites the seed by title "
    "and section and quotes it); **article-computed** — a seed computed it or read it from "
    "bytecode but never ran it; **ctxlab** — our own check, no seed value (`article_value` is "
    "empty).\n\n"
)


def _first_model(claims: pd.DataFrame) -> pd.DataFrame:
    """The rows of the first model listed (the model of the experiment's own JSON)."""
    if "model" not in claims.columns or not len(claims):
        return claims
    return claims[claims["model"] == claims["model"].iloc[0]]


def _english(claims: pd.DataFrame) -> pd.DataFrame:
    """The claims with their quotes left whole and an ``English`` column glossing the Chinese
    they quote (a gloss inside a quote would garble it)."""
    return english_column(claims, list(claims.columns))


def _source_section(rows: list[ProvenanceRow]) -> str:
    sources = ", ".join(dict.fromkeys(r.source for r in rows)) or "unknown"
    cassettes = [r for r in rows if any(getattr(r, c) for c in PROVENANCE_COLUMNS)]
    text = f"**Source:** {sources}\n"
    if cassettes:
        frame = records_frame(cassettes, ProvenanceRow)[PROVENANCE_COLUMNS]
        frame["model_sha256"] = frame["model_sha256"].map(short_sha)
        text += "\n" + markdown_table(frame)
    return text


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


def _measurements(doc: ExperimentDoc, view: object, reason: str, claims: pd.DataFrame) -> str:
    section = measurements_section(doc.id, view, claims)
    return _generic_section(doc, reason) if section is None else section


def _config_line(data: Mapping[str, Any] | None) -> str:
    config = (data or {}).get("config")
    if not isinstance(config, Mapping) or not config:
        return ""
    pairs = ", ".join(f"`{k}` = {dump_json(v).strip()}" for k, v in config.items())
    return f"**Config:** {pairs}\n\n"


def experiment_page(
    doc: ExperimentDoc,
    view: object,
    reason: str,
    claims: pd.DataFrame,
    provenance: list[ProvenanceRow],
    others: Sequence[ExperimentDoc] = (),
) -> str:
    """``<ID>.md``: title, source, the experiment's claims, then what it measured, once per
    recorded model: the first model's measurements, then those of each ``<ID>@<model>.json``
    in ``others`` under their own heading (a reader must see what every model produced).

    ``view`` and ``reason`` come from :func:`.experiments.read_view`; without a view the
    measurements are rendered generically, saying ``reason``.
    """
    title = experiment_title(doc.id, doc.data)
    every = claims.loc[claims["experiment"] == doc.id]
    shown = side_by_side(every, PAGE_CLAIM_COLUMNS)
    claims_text = markdown_table(_english(shown)) if len(every) else "_No claims recorded._\n"
    own = _first_model(every).loc[:, PAGE_CLAIM_COLUMNS]
    page = "\n".join(
        [
            f"# {doc.id}" + (f": {title}" if title else "") + "\n",
            _source_section([r for r in provenance if r.experiment == doc.id]),
            f"Data: [{doc.id}.json]({doc.id}.json) · all claims: [claims.md](claims.md) · "
            "report: [index.html](index.html)\n",
            "## Claims\n",
            claims_text,
            "## Measurements\n",
            _config_line(doc.data) + _measurements(doc, view, reason, own),
            *(_other_model(doc, other, every) for other in others),
        ]
    )
    # model output and recorded text are in it: no HTML of theirs may be live on the page
    return escape_html(page)


def _other_model(doc: ExperimentDoc, other: ExperimentDoc, claims: pd.DataFrame) -> str:
    """The measurements of one more recorded model (``<ID>@<model>.json``)."""
    model = other.id.split("@", 1)[1]
    as_own = dataclasses.replace(other, id=doc.id)
    view, reason = read_view(as_own)
    own = claims.loc[claims["model"] == model, PAGE_CLAIM_COLUMNS] if "model" in claims else claims
    return (
        f"## Measurements: {model}\n\nData: [{other.id}.json]({other.id}.json)\n\n"
        + _measurements(as_own, view, reason, own)
    )
