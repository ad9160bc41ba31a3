"""The suite's machinery, with no experiment inside it.

Settings and the experiment type (:mod:`.experiment`), claims and their judges (:mod:`.claims`),
the typed views' codec (:mod:`.views`), the runner and the all-or-nothing report commit
(:mod:`.runner`, :mod:`.staging`), the baseline check (:mod:`.baseline`), the CLI (:mod:`.cli`),
the pytest plugin (:mod:`.pytest_plugin`), recording (:mod:`.recording`, :mod:`.recorder`), the
mutation matrix (:mod:`.mutations`) and the report builder (:mod:`.report`). Each experiment is a
folder of its own beside this one (``experiments/e3/`` …), listed in :mod:`experiments.manifest`.

The names experiments build on are exported here (``lab.__all__``, pinned by
``tests/lab/test_lab_public_surface.py``): the experiment type and settings, claims and their
judges, the views' codec, recorded runs and cassettes, and the report's page, plot and Markdown
helpers. Like ``harness``, they are imported on first use (PEP 562), so ``import lab`` loads none
of the modules they live in (no pandas, no matplotlib: ``ctxlab --help`` stays fast)::

    from lab import ClaimSpec, Experiment, RunSettings, evaluate
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lab.cassette_sets import list_sets, split_set
    from lab.claims import AS_SEED, DSH_SEED, Claim, cite
    from lab.claims.answer_judges import carries_previous, copied_messages
    from lab.claims.judges import (
        call_attempts,
        filled_sections,
        invented_codes,
        markdown_headings,
        recall_route,
        verbatim_copy,
    )
    from lab.claims.reason_classes import (
        CAP,
        DEVIATION,
        ENDS,
        FORMULA,
        MODEL,
        OWN_INPUT,
        TARGET,
    )
    from lab.claims.specs import ClaimSpec, Verdict, evaluate, every, yes
    from lab.cli import main, sigterm_as_interrupt
    from lab.cli.models import live_model
    from lab.cli.options import timeout_options
    from lab.cli.subcommands import PROVIDERS
    from lab.csv_cells import safe_text_columns
    from lab.errors import ExperimentError
    from lab.experiment import ARTICLE_METER, Experiment, ExperimentResult, RunSettings, dump_json
    from lab.limiter import LimitedModel, Limiter
    from lab.mutations.answers import Rewrite, rewritten
    from lab.mutations.mutation import Catalogue, Mutation
    from lab.mutations.patching import Patch, attr, many, nothing, wrap
    from lab.record_pool import RecordPlan, record_all
    from lab.recorder import cassette_client, provider_spec
    from lab.recorder.order_replay import OrderPart
    from lab.recorder.provenance import Provenance
    from lab.recorder.textcalls import TextToolCalls
    from lab.report.evidence.calls import Call
    from lab.report.evidence.facts import ConditionRuns, FactsRow
    from lab.report.glossary import english_column, gloss_note
    from lab.report.markdown import (
        NEWLINE_MARK,
        and_list,
        fence,
        flat_text,
        markdown_table,
        shorten,
    )
    from lab.report.piece import Evidence, Page
    from lab.report.plots.canvas import (
        ARTICLE,
        ARTICLE_LIGHT,
        COMPACTION,
        FOOTER_INCHES,
        OURS,
        OURS_LIGHT,
        Margins,
        Plot,
        PlotSize,
        drawn_plot,
        new_figure,
        plot_of,
        png,
        wrapped_model,
    )
    from lab.report.tables import model_order
    from lab.request_cache import CachedModel, RequestCache
    from lab.suite import Command, Entry, Suite, use
    from lab.version import ctxlab_version
    from lab.views import from_data, to_data
    from lab.views.codec import ShapeError
    from lab.views.recorded import RecordedView, recorded_result, view_header

_SOURCES = {
    "list_sets": "lab.cassette_sets",
    "split_set": "lab.cassette_sets",
    "AS_SEED": "lab.claims",
    "Claim": "lab.claims",
    "DSH_SEED": "lab.claims",
    "cite": "lab.claims",
    "carries_previous": "lab.claims.answer_judges",
    "copied_messages": "lab.claims.answer_judges",
    "call_attempts": "lab.claims.judges",
    "filled_sections": "lab.claims.judges",
    "invented_codes": "lab.claims.judges",
    "markdown_headings": "lab.claims.judges",
    "recall_route": "lab.claims.judges",
    "verbatim_copy": "lab.claims.judges",
    "CAP": "lab.claims.reason_classes",
    "DEVIATION": "lab.claims.reason_classes",
    "ENDS": "lab.claims.reason_classes",
    "FORMULA": "lab.claims.reason_classes",
    "MODEL": "lab.claims.reason_classes",
    "OWN_INPUT": "lab.claims.reason_classes",
    "TARGET": "lab.claims.reason_classes",
    "ClaimSpec": "lab.claims.specs",
    "Verdict": "lab.claims.specs",
    "evaluate": "lab.claims.specs",
    "every": "lab.claims.specs",
    "yes": "lab.claims.specs",
    "main": "lab.cli",
    "sigterm_as_interrupt": "lab.cli",
    "live_model": "lab.cli.models",
    "cassette_client": "lab.recorder",
    "provider_spec": "lab.recorder",
    "timeout_options": "lab.cli.options",
    "PROVIDERS": "lab.cli.subcommands",
    "safe_text_columns": "lab.csv_cells",
    "ExperimentError": "lab.errors",
    "ARTICLE_METER": "lab.experiment",
    "Experiment": "lab.experiment",
    "ExperimentResult": "lab.experiment",
    "RunSettings": "lab.experiment",
    "dump_json": "lab.experiment",
    "LimitedModel": "lab.limiter",
    "Limiter": "lab.limiter",
    "Rewrite": "lab.mutations.answers",
    "rewritten": "lab.mutations.answers",
    "Catalogue": "lab.mutations.mutation",
    "Mutation": "lab.mutations.mutation",
    "Patch": "lab.mutations.patching",
    "attr": "lab.mutations.patching",
    "many": "lab.mutations.patching",
    "nothing": "lab.mutations.patching",
    "wrap": "lab.mutations.patching",
    "RecordPlan": "lab.record_pool",
    "record_all": "lab.record_pool",
    "OrderPart": "lab.recorder.order_replay",
    "Provenance": "lab.recorder.provenance",
    "TextToolCalls": "lab.recorder.textcalls",
    "Call": "lab.report.evidence.calls",
    "ConditionRuns": "lab.report.evidence.facts",
    "FactsRow": "lab.report.evidence.facts",
    "english_column": "lab.report.glossary",
    "gloss_note": "lab.report.glossary",
    "NEWLINE_MARK": "lab.report.markdown",
    "and_list": "lab.report.markdown",
    "fence": "lab.report.markdown",
    "flat_text": "lab.report.markdown",
    "markdown_table": "lab.report.markdown",
    "shorten": "lab.report.markdown",
    "Evidence": "lab.report.piece",
    "Page": "lab.report.piece",
    "ARTICLE": "lab.report.plots.canvas",
    "ARTICLE_LIGHT": "lab.report.plots.canvas",
    "COMPACTION": "lab.report.plots.canvas",
    "FOOTER_INCHES": "lab.report.plots.canvas",
    "OURS": "lab.report.plots.canvas",
    "OURS_LIGHT": "lab.report.plots.canvas",
    "Margins": "lab.report.plots.canvas",
    "Plot": "lab.report.plots.canvas",
    "PlotSize": "lab.report.plots.canvas",
    "drawn_plot": "lab.report.plots.canvas",
    "new_figure": "lab.report.plots.canvas",
    "plot_of": "lab.report.plots.canvas",
    "png": "lab.report.plots.canvas",
    "wrapped_model": "lab.report.plots.canvas",
    "model_order": "lab.report.tables",
    "CachedModel": "lab.request_cache",
    "RequestCache": "lab.request_cache",
    "Command": "lab.suite",
    "Entry": "lab.suite",
    "Suite": "lab.suite",
    "use": "lab.suite",
    "ctxlab_version": "lab.version",
    "from_data": "lab.views",
    "to_data": "lab.views",
    "ShapeError": "lab.views.codec",
    "RecordedView": "lab.views.recorded",
    "recorded_result": "lab.views.recorded",
    "view_header": "lab.views.recorded",
}

__all__ = [
    "ARTICLE",
    "ARTICLE_LIGHT",
    "ARTICLE_METER",
    "AS_SEED",
    "CAP",
    "COMPACTION",
    "DEVIATION",
    "DSH_SEED",
    "ENDS",
    "FOOTER_INCHES",
    "FORMULA",
    "MODEL",
    "NEWLINE_MARK",
    "OURS",
    "OURS_LIGHT",
    "OWN_INPUT",
    "PROVIDERS",
    "TARGET",
    "CachedModel",
    "Call",
    "Catalogue",
    "Claim",
    "ClaimSpec",
    "Command",
    "ConditionRuns",
    "Entry",
    "Evidence",
    "Experiment",
    "ExperimentError",
    "ExperimentResult",
    "FactsRow",
    "LimitedModel",
    "Limiter",
    "Margins",
    "Mutation",
    "OrderPart",
    "Page",
    "Patch",
    "Plot",
    "PlotSize",
    "Provenance",
    "RecordPlan",
    "RecordedView",
    "RequestCache",
    "Rewrite",
    "RunSettings",
    "ShapeError",
    "Suite",
    "TextToolCalls",
    "Verdict",
    "and_list",
    "attr",
    "call_attempts",
    "carries_previous",
    "cassette_client",
    "cite",
    "copied_messages",
    "ctxlab_version",
    "drawn_plot",
    "dump_json",
    "english_column",
    "evaluate",
    "every",
    "fence",
    "filled_sections",
    "flat_text",
    "from_data",
    "gloss_note",
    "invented_codes",
    "list_sets",
    "live_model",
    "main",
    "many",
    "markdown_headings",
    "markdown_table",
    "model_order",
    "new_figure",
    "nothing",
    "plot_of",
    "png",
    "provider_spec",
    "recall_route",
    "record_all",
    "recorded_result",
    "rewritten",
    "safe_text_columns",
    "shorten",
    "sigterm_as_interrupt",
    "split_set",
    "timeout_options",
    "to_data",
    "use",
    "verbatim_copy",
    "view_header",
    "wrap",
    "wrapped_model",
    "yes",
]


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module 'lab' has no attribute {name!r}")
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
