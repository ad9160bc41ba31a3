"""The sections of ``index.html``, one per experiment, as data the template shows: what it
tests, its verdict, its plots, its claims (each model's value beside the article's, the note
without the phrases :mod:`.boilerplate` says once) and its provenance.

Every text is a plain string (Jinja2 escapes it) or :class:`markupsafe.Markup` made by
:func:`markup` from :func:`.glossary.gloss_html`, which escapes what it keeps.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
from markupsafe import Markup
from PIL import Image

from experiments.lab.report.boilerplate import split_notes
from experiments.lab.report.experiments import about
from experiments.lab.report.glossary import gloss_html
from experiments.lab.report.plots import Plot
from experiments.lab.report.tables import (
    SCRIPTED_MODEL,
    ProvenanceRow,
    ReportInputs,
    experiment_title,
)
from experiments.lab.report.verdicts import Verdict, claim_status

__all__ = [
    "SAME",
    "SHOWN",
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
)
"""Columns the claims tables place themselves; any other column gets a cell of its own."""

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
    cited: Markup
    status: str
    """``match``, ``differs`` or ``mixed``."""
    values: tuple[ValueCell | None, ...]
    notes: tuple[tuple[str, Markup], ...]
    """``(model, note)``; one entry with an empty model when every model's note reads the same."""
    extras: tuple[tuple[str, Markup], ...] = ()


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
    models: tuple[str, ...]
    rows: tuple[ClaimRow, ...]
    once: tuple[str, ...]
    figures: tuple[Figure, ...]
    provenance: tuple[ProvenanceRow, ...]
    has_page: bool
    has_json: bool
    generic: str
    extras: tuple[str, ...] = ()


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


def _note_entries(
    rows: Sequence[Mapping[str, str]], notes: Sequence[str]
) -> list[tuple[str, Markup]]:
    """Each model's note; one without a model when all of them read the same."""
    shown = [(r.get("model", ""), n) for r, n in zip(rows, notes, strict=True) if n]
    if len(shown) == len(rows) and len({n for _, n in shown}) == 1:
        return [("", markup(shown[0][1]))]
    return [(model, markup(note)) for model, note in shown]


def _claim_rows(
    own: pd.DataFrame, models: Sequence[str], extras: Sequence[str]
) -> tuple[list[ClaimRow], tuple[str, ...]]:
    records = own.to_dict("records")
    split = split_notes([str(r["note"]) for r in records])
    for record, note in zip(records, split.notes, strict=True):
        record["_note"] = note
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
                markup(str(first["article_value"]) or "— (our own check)"),
                markup(str(first.get("article_source", ""))),
                claim_status([r["status"] for r in group]),
                values,
                tuple(_note_entries(group, [r["_note"] for r in group])),
                tuple((label(c), markup(str(first[c]))) for c in extras),
            )
        )
    return rows, split.once


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
            else markup(str(r["reproduced_value"])),
            r.get("reason_class", ""),
        )
        for m in models
    )


def _section_models(own: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(own["model"])) if "model" in own.columns else [SCRIPTED_MODEL]


def sections(
    inputs: ReportInputs,
    order: Sequence[str],
    found: Mapping[str, Verdict],
    plots: Sequence[Plot],
    provenance: Sequence[ProvenanceRow],
    generic: Mapping[str, str],
) -> list[Section]:
    claims = inputs.claims
    extras = tuple(c for c in claims.columns if c not in SHOWN)
    docs = {doc.id: doc for doc in inputs.experiments}
    sections = []
    for experiment in order:
        own = claims[claims["experiment"] == experiment]
        models = _section_models(own) if len(own) else []
        rows, once = _claim_rows(own, models, extras) if len(own) else ([], ())
        doc = docs.get(experiment)
        verdict = found.get(experiment)
        sections.append(
            Section(
                experiment,
                anchor(experiment),
                experiment_title(experiment, doc.data if doc else None),
                about(experiment),
                verdict.sentence() if verdict else "No claims were recorded.",
                tuple(models),
                tuple(rows),
                once,
                tuple(figure_of(p) for p in plots if plot_experiment(p) == experiment),
                tuple(r for r in provenance if r.experiment == experiment),
                doc is not None,
                doc is not None,
                generic.get(experiment, ""),
                tuple(label(c) for c in extras),
            )
        )
    return sections
