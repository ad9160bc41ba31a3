"""The reports built from what the experiments wrote: Markdown pages, plots and ``index.html``.

:func:`build_reports` reads ``claims.csv`` and every ``E*.json`` of a reports folder and writes,
deterministically (two builds give byte-identical files):

- ``claims.md``: the summary line and every claim;
- ``<ID>.md``: one page per experiment JSON present (a generic page when its shape is unknown);
- ``E1_strip.png``, ``E2_files.png``, ``E3_context.png``, ``E4_cache.png``,
  ``E5_cadence.png``: the plots of the experiments present;
- ``index.html``: one self-contained page: the verdicts, every claim in one filterable table
  (each row linking to its evidence), then one section per experiment (its plots, a summary
  of its claims and its provenance);
- ``mutations.html``: the mutation matrix of ``mutations.csv``, when there is one
  (:mod:`.mutations`);
- ``evidence/<CLAIM-ID>.html``: what each claim was judged on (:mod:`.evidence`).

A recorded experiment's plot shows every recorded set: ``<ID>.json`` and each
``<ID>@<model>.json`` (:func:`recorded_views`).

Modules: :mod:`.tables` (inputs, claims, provenance); :mod:`.experiments`, each experiment's
``page.PAGE`` (``experiments/<name>/page.py``: its view type, its page's Measurements section,
its plot), collected in the manifest's order; then the renderers :mod:`.pages` (with
:mod:`.markdown`), :mod:`.plots` and :mod:`.html`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.fs.files import write_atomic
from lab.experiment import refuse_secrets
from lab.project import SOURCE_ROOT

if TYPE_CHECKING:  # the modules below are imported when a report is built: `lab.report.markdown`
    # and the other helpers import without pandas' tables, matplotlib's plots or the templates
    from lab.report.experiments import RecordedSets
    from lab.report.tables import ReportInputs

__all__ = ["build_reports", "preload", "recorded_views"]


def recorded_views(
    inputs: ReportInputs, read: Mapping[str, tuple[Any, str]] | None = None
) -> dict[str, RecordedSets]:
    """Each experiment's readable views, one per recorded set, with its model's name: every
    ``<ID>@<model>.json`` beside ``<ID>.json``, so a set recorded later is plotted as it is.
    ``read``: views already read, by document id (:func:`build_reports` has each
    ``<ID>.json``'s), not read again (the committed ones took about 0.1 s of CPU)."""
    from lab.report.experiments import read_view
    from lab.report.tables import set_docs

    known = read or {}
    return {
        key: [
            (model, view)
            for model, doc in docs
            if (view := (known.get(doc.id) or read_view(doc))[0]) is not None
        ]
        for key, docs in set_docs(inputs).items()
    }


def _linked_pages(out_dir: Path, inputs: ReportInputs, cassettes: Path) -> dict[Path, str]:
    """The pages ``index.html`` links to: ``mutations.html`` (with a ``mutations.csv``) and
    each claim's evidence page."""
    from lab.report.evidence import evidence_href, evidence_pages
    from lab.report.html import TITLE
    from lab.report.mutations import PAGE, mutations_page, read_matrix

    pages: dict[Path, str] = {}
    matrix = read_matrix(out_dir)
    if matrix:
        pages[out_dir / PAGE] = mutations_page(matrix, TITLE, evidence_href)
    for name, page in evidence_pages(inputs, cassettes, TITLE).items():
        pages[out_dir / name] = page
    return pages


def preload() -> None:
    """Import the modules :func:`build_reports` imports when it runs (pandas, matplotlib, numpy),
    ahead of it: a run that forks workers imports them once, before the fork
    (:func:`lab.runner.run_experiments`)."""
    from lab.report import evidence, experiments, html, mutations, pages, tables  # noqa: F401


def build_reports(
    out_dir: Path, jobs: int = 1, cassettes: Path | None = None, *, durable: bool = True
) -> list[Path]:
    """Build every report file from ``out_dir``'s ``claims.csv`` and ``E*.json`` (the plots
    rendered by ``jobs`` worker processes; the evidence pages read the cassettes under
    ``cassettes``, the project's ``cassettes/`` by default).

    Each file is written atomically and synced (``durable``), unless ``out_dir`` is a staging
    folder whose commit syncs every file before it swaps the folder in
    (:func:`lab.staging.staged`): there ``durable=False`` writes each file once, plainly.

    Returns the files written, in the order written: ``claims.md``, the experiment pages, the
    plots, ``mutations.html`` (with a ``mutations.csv``), the evidence pages, then
    ``index.html``. Evidence pages of claims no longer in ``claims.csv`` are removed.
    """
    from lab.report.evidence import FOLDER
    from lab.report.experiments import build_plots, experiment_pages, read_view
    from lab.report.html import render_index
    from lab.report.mutations import PAGE
    from lab.report.pages import claims_markdown, experiment_page
    from lab.report.tables import count_claims, load_inputs, provenance_rows

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
    plots = build_plots(recorded_views(inputs, read), jobs)
    for plot in plots:
        files[out_dir / f"{plot.name}.png"] = plot.png
    generic = {key: reason for key, (_, reason) in read.items() if reason}
    files |= _linked_pages(out_dir, inputs, cassettes or SOURCE_ROOT / "cassettes")
    mutations = PAGE if out_dir / PAGE in files else ""
    files[out_dir / "index.html"] = render_index(inputs, plots, provenance, generic, mutations)
    _write(files, out_dir / FOLDER, durable)
    return list(files)


def _write(files: dict[Path, str | bytes], evidence: Path, durable: bool = True) -> None:
    """Write ``files`` once none holds a secret (atomically and synced when ``durable``), and
    remove the pages of ``evidence`` that are not among them (the evidence of a claim that is
    gone)."""
    for path, data in files.items():
        if isinstance(data, str):
            refuse_secrets(path, data)
    for stale in sorted(evidence.glob("*.html")):
        if stale not in files:
            stale.unlink()
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if durable:
            write_atomic(path, data)
        else:
            path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
