"""The sections of ``index.html``, one per experiment, as data the template shows: what it
tests, its verdict, its plots, its claims (each model's value beside the article's, a long value
cut short: the evidence page has it whole) and its provenance. The claims are shown once, in
the page's one claims table, grouped by experiment; a section summarises them and links to
the table and to the evidence of those that differ.

Every text is a plain string (Jinja2 escapes it) or :class:`markupsafe.Markup` made by
:func:`markup` from :func:`.glossary.gloss_html`, which escapes what it keeps.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
from markupsafe import Markup
from PIL import Image

from lab.report.experiments import about
from lab.report.glossary import gloss_html
from lab.report.markdown import shorten
from lab.report.plots import Plot
from lab.report.tables import (
    SCRIPTED_MODEL,
    ProvenanceRow,
    ReportInputs,
    experiment_title,
    recorded_models,
)
from lab.report.verdicts import Verdict, claim_status

__all__ = [
    "SAME",
    "SHOWN",
    "VALUE_CHARS",
    "ClaimRow",
    "Figure",
    "Section",
    "ValueCell",
    "anchor",
    "figure_of",
    "label",
    "markup",
    "plot_experiment",
    "sections",
    "table_models",
]

SHOWN = (
    "experiment",
    "claim_id",
    "claim",
    "source",
    "kind",
    "article_source",
    "model",
    "article_value",
    "reproduced_value",
    "status",
    "reason_class",
    "note",
    "version",
)
"""Columns the claims tables place themselves, or leave out (``version``, the experiment's, is
for ``claims.csv`` and ``<id>.json``); any other column gets a cell of its own."""

VALUE_CHARS = 50
"""The most characters of a value the claims table shows; the evidence page shows it whole."""
SAME = Markup('<span class="same">same as the article</span>')
"""A model's value where it reads exactly as the article's (said once, in the Article cell)."""


def markup(text: str) -> Markup:
    """``text`` escaped, its Chinese glossed (:func:`.glossary.gloss_html`), as markup."""
    return Markup(gloss_html(text))


def label(column: str) -> str:
    return column.replace("_", " ").capitalize()


def anchor(experiment: str) -> str:
    return f"exp-{experiment}"


@dataclass(frozen=True)
class ValueCell:
    """One model's value of a claim."""

    model: str
    status: str
    value: Markup
    reason: str = ""


@dataclass(frozen=True)
class ClaimRow:
    """One claim of a section: its text, the article's value and each model's."""

    claim_id: str
    claim: Markup
    kind: str
    article: Markup
    status: str
    """``match``, ``differs`` or ``mixed``."""
    values: tuple[ValueCell | None, ...]
    extras: tuple[tuple[str, Markup], ...] = ()
    evidence: str = ""
    """Its evidence page, relative to ``index.html``."""

    @property
    def statuses(self) -> str:
        """``model=status`` of each model it has a value for, space-separated (the filter
        reads it)."""
        return " ".join(f"{v.model}={v.status}" for v in self.values if v is not None)

    @property
    def scripted(self) -> ValueCell | None:
        """Its one value when it is a scripted claim (no recorded model has a value)."""
        held = [v for v in self.values if v is not None]
        return held[0] if len(held) == 1 and held[0].model == SCRIPTED_MODEL else None


@dataclass(frozen=True)
class Figure:
    name: str
    caption: str
    src: str
    width: int
    height: int


@dataclass(frozen=True)
class Section:
    """One experiment's section."""

    id: str
    anchor: str
    title: str
    about: str
    sentence: str
    rows: tuple[ClaimRow, ...]
    """Its claims, shown in the page's claims table (the section counts and links them)."""
    figures: tuple[Figure, ...]
    provenance: tuple[ProvenanceRow, ...]
    has_page: bool
    has_json: bool
    generic: str
    extras: tuple[str, ...] = ()
    differing: tuple[tuple[str, str], ...] = ()
    """``(claim id, evidence page)`` of its claims that differ or are mixed."""


def _png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its header."""
    with Image.open(io.BytesIO(data)) as image:
        return image.size


def plot_experiment(plot: Plot) -> str:
    """The experiment a plot belongs to: its own, else its name's stem (``E3_context``: E3)."""
    return plot.experiment or plot.name.rsplit("_", 1)[0]


def figure_of(plot: Plot) -> Figure:
    data = base64.b64encode(plot.png).decode("ascii")
    width, height = plot.size if all(plot.size) else _png_size(plot.png)
    return Figure(plot.name, plot.caption, f"data:image/png;base64,{data}", width, height)


def _claim_rows(
    own: pd.DataFrame,
    models: Sequence[str],
    extras: Sequence[str],
    evidence: Callable[[str], str],
) -> list[ClaimRow]:
    """One row per claim of ``own``: its notes and seed passage stay on its evidence page."""
    records = own.to_dict("records")
    groups: dict[str, list[dict[str, str]]] = {}
    for record in records:
        groups.setdefault(record["claim_id"], []).append(record)
    rows = []
    for claim_id, group in groups.items():
        first = group[0]
        values = _value_cells(group, models)
        rows.append(
            ClaimRow(
                claim_id,
                markup(str(first["claim"])),
                str(first.get("kind", "")),
                markup(shorten(str(first["article_value"]), VALUE_CHARS) or "— (our own check)"),
                claim_status([r["status"] for r in group]),
                values,
                tuple((label(c), markup(str(first[c]))) for c in extras),
                evidence(claim_id),
            )
        )
    return rows


def _value_cells(
    group: Sequence[dict[str, str]], models: Sequence[str]
) -> tuple[ValueCell | None, ...]:
    """One claim's value per model (None where that model has no row); ``SAME`` where it is
    the article's."""
    first = group[0]
    by_model = {r.get("model", ""): r for r in group}
    return tuple(
        None
        if (r := by_model.get(m)) is None
        else ValueCell(
            m,
            r["status"],
            SAME
            if str(r["reproduced_value"]) == str(first["article_value"]) != ""
            else markup(shorten(str(r["reproduced_value"]), VALUE_CHARS)),
            r.get("reason_class", ""),
        )
        for m in models
    )


def table_models(claims: pd.DataFrame) -> list[str]:
    """The claims table's model columns: the recorded models in their order, then
    ``scripted`` when a scripted experiment has claims."""
    models = recorded_models(claims)
    if "model" not in claims.columns or (claims["model"] == SCRIPTED_MODEL).any():
        models.append(SCRIPTED_MODEL)
    if "model" in claims.columns and (claims["model"] == "").any():
        models.append("")  # rows not yet labelled with their model (built by hand)
    return models


def sections(
    inputs: ReportInputs,
    order: Sequence[str],
    found: Mapping[str, Verdict],
    plots: Sequence[Plot],
    provenance: Sequence[ProvenanceRow],
    generic: Mapping[str, str],
    evidence: Callable[[str], str],
) -> list[Section]:
    """One section per experiment of ``order``; its claim rows carry a value per
    :func:`table_models` column and link to their ``evidence`` page."""
    claims = inputs.claims
    all_models = table_models(claims)
    extras = tuple(c for c in claims.columns if c not in SHOWN)
    docs = {doc.id: doc for doc in inputs.experiments}
    sections = []
    for experiment in order:
        own = claims[claims["experiment"] == experiment]
        rows = _claim_rows(own, all_models, extras, evidence) if len(own) else []
        doc = docs.get(experiment)
        verdict = found.get(experiment)
        sections.append(
            Section(
                experiment,
                anchor(experiment),
                experiment_title(experiment, doc.data if doc else None),
                about(experiment),
                verdict.sentence() if verdict else "No claims were recorded.",
                tuple(rows),
                tuple(figure_of(p) for p in plots if plot_experiment(p) == experiment),
                tuple(r for r in provenance if r.experiment == experiment),
                doc is not None,
                doc is not None,
                generic.get(experiment, ""),
                tuple(label(c) for c in extras),
                tuple((r.claim_id, r.evidence) for r in rows if r.status != "match"),
            )
        )
    return sections
