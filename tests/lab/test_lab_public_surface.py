"""``lab.__all__`` is pinned (as ``harness.__all__`` is, in tests/harness/test_exported_members.py):
the names experiments build on, each resolving to its definition in a ``lab`` module, each
imported on first use so that ``import lab`` stays cheap."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import lab

PUBLIC = [
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


def test_all_is_pinned() -> None:
    assert lab.__all__ == PUBLIC


@pytest.mark.parametrize("name", PUBLIC)
def test_every_exported_name_is_its_module_s_object(name: str) -> None:
    source = lab._SOURCES[name]
    assert source.startswith("lab.")
    assert getattr(lab, name) is getattr(importlib.import_module(source), name)


def test_the_type_checkers_see_the_names_where_they_are_loaded_from() -> None:
    """The ``if TYPE_CHECKING`` imports (what mypy reads) and the table the lazy lookup reads
    name each public name from the same module, and nothing else."""
    tree = ast.parse(Path(lab.__file__).read_text(encoding="utf-8"))
    (block,) = [
        n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)
    ]
    typed = {
        alias.name: node.module
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert typed == lab._SOURCES
    assert sorted(typed) == sorted(PUBLIC)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        lab.Nope  # noqa: B018


def test_import_lab_loads_none_of_the_modules_it_names() -> None:
    probe = (
        "import sys, lab\n"
        "print(sorted(m for m in sys.modules if m.startswith(('lab.', 'pandas', 'matplotlib'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_star_import_gives_exactly_the_public_names() -> None:
    namespace: dict[str, object] = {}
    exec("from lab import *", namespace)
    assert sorted(k for k in namespace if k != "__builtins__") == sorted(PUBLIC)
