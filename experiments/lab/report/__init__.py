"""The reports built from what the experiments wrote: Markdown pages, plots and ``index.html``.

:func:`build_reports` reads ``claims.csv`` and every ``E*.json`` of a reports folder and writes,
deterministically (two builds give byte-identical files):

- ``claims.md``: the summary line and every claim;
- ``<ID>.md``: one page per experiment JSON present (a generic page when its shape is unknown);
- ``E1_strip.png``, ``E2_files.png``, ``E3_context.png``, ``E4_cache.png``,
  ``E5_cadence.png``: the plots of the experiments present;
- ``index.html``: one self-contained page: the verdicts, one section per experiment (its
  plots, claims and provenance), then every claim, filterable.

A recorded experiment's plot shows every recorded set: ``<ID>.json`` and each
``<ID>@<model>.json`` (:func:`recorded_views`).

Modules: :mod:`.tables` (inputs, claims, provenance); :mod:`.experiments`, each experiment's
``page.PAGE`` (``experiments/<name>/page.py``: its view type, its page's Measurements section,
its plot), collected in the manifest's order; then the renderers :mod:`.pages` (with
:mod:`.markdown`), :mod:`.plots` and :mod:`.html`.
"""

from __future__ import annotations

from pathlib import Path

from experiments.lab.experiment import refuse_secrets
from experiments.lab.report.experiments import (
    RecordedSets,
    build_plots,
    experiment_pages,
    read_view,
)
from experiments.lab.report.html import render_index
from experiments.lab.report.mutations import mutations_section, read_matrix
from experiments.lab.report.pages import claims_markdown, experiment_page
from experiments.lab.report.tables import (
    ReportInputs,
    count_claims,
    load_inputs,
    provenance_rows,
    set_docs,
)
from harness.fs.files import write_atomic

__all__ = ["build_reports", "recorded_views"]


def recorded_views(inputs: ReportInputs) -> dict[str, RecordedSets]:
    """Each experiment's readable views, one per recorded set, with its model's name: every
    ``<ID>@<model>.json`` beside ``<ID>.json``, so a set recorded later is plotted as it is."""
    return {
        key: [(model, view) for model, doc in docs if (view := read_view(doc)[0]) is not None]
        for key, docs in set_docs(inputs).items()
    }


def build_reports(out_dir: Path, jobs: int = 1) -> list[Path]:
    """Build every report file from ``out_dir``'s ``claims.csv`` and ``E*.json`` (the plots
    rendered by ``jobs`` worker processes).

    Returns the files written, in the order written: ``claims.md``, the experiment pages, the
    plots, then ``index.html``.
    """
    inputs = load_inputs(out_dir)
    provenance = provenance_rows(inputs)
    read = {doc.id: read_view(doc) for doc in inputs.experiments}
    files: dict[Path, str | bytes] = {
        out_dir / "claims.md": claims_markdown(inputs.claims, count_claims(inputs.claims))
    }
    for doc in inputs.experiments:
        view, reason = read[doc.id]
        # a page shows each recorded model's measurements where its PAGE says so (E4); the
        # others show the first model's, the rest is in claims.md
        page = experiment_pages().get(doc.id)
        every = page is not None and page.every_model
        others = [o for o in inputs.other_models if every and o.id.split("@", 1)[0] == doc.id]
        files[out_dir / f"{doc.id}.md"] = experiment_page(
            doc, view, reason, inputs.claims, provenance, others
        )
    plots = build_plots(recorded_views(inputs), jobs)
    for plot in plots:
        files[out_dir / f"{plot.name}.png"] = plot.png
    generic = {key: reason for key, (_, reason) in read.items() if reason}
    matrix = read_matrix(out_dir)
    section = mutations_section(matrix) if matrix else ""
    files[out_dir / "index.html"] = render_index(inputs, plots, provenance, generic, section)
    for path, data in files.items():
        if isinstance(data, str):
            refuse_secrets(path, data)
    for path, data in files.items():
        write_atomic(path, data)
    return list(files)
