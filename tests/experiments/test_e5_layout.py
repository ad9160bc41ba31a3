"""E5's one pattern, pinned: five files at the top, the five small mechanisms in
``mechanisms/``, and each family one module of the same name in ``measures/``, ``view/`` and
``claims/``, whose view imports nothing of E5 but the view and whose claims read only the view
(and ``common``), never a measuring module; each check fails on a planted violation."""

from __future__ import annotations

import ast
from pathlib import Path

from support.paths import ROOT

E5 = ROOT / "experiments" / "e5"
TOP = ["__init__.py", "common.py", "page.py", "page_checks.py", "plot.py"]
MECHANISMS = ["failures", "fallback", "flush_order", "grid", "tool_calls"]


def names(folder: Path) -> list[str]:
    """The modules and packages of ``folder`` (``__init__`` left out)."""
    found = {p.stem for p in folder.glob("*.py") if p.name != "__init__.py"}
    found |= {p.parent.name for p in folder.glob("*/__init__.py")}
    return sorted(found)


def e5_imports(source: str) -> set[str]:
    """The ``experiments.e5`` modules a source imports, wherever the import sits."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {m for m in found if m == "experiments.e5" or m.startswith("experiments.e5.")}


def strays(source: str, allowed: tuple[str, ...]) -> set[str]:
    """What ``source`` imports from E5 outside the ``allowed`` prefixes."""
    return {m for m in e5_imports(source) if not m.startswith(allowed)}


def test_the_top_of_e5_holds_five_files_and_four_folders() -> None:
    assert sorted(p.name for p in E5.glob("*.py")) == TOP
    assert names(E5) == sorted([*(f[:-3] for f in TOP if f != "__init__.py"), "claims",
                                "measures", "mechanisms", "view"])  # fmt: skip
    assert names(E5 / "mechanisms") == MECHANISMS


def test_each_family_has_one_module_of_its_name_in_measures_view_and_claims() -> None:
    families = names(E5 / "claims")
    assert len(families) == 7
    assert names(E5 / "measures") == families == names(E5 / "view")


def test_a_view_imports_only_the_view_and_a_familys_claims_only_the_view_and_common() -> None:
    for path in sorted((E5 / "view").glob("*.py")):
        assert strays(path.read_text(encoding="utf-8"), ("experiments.e5.view",)) == set(), path
    for path in sorted((E5 / "claims").glob("*.py")):
        if path.name != "__init__.py":
            allowed = ("experiments.e5.view", "experiments.e5.common")
            assert strays(path.read_text(encoding="utf-8"), allowed) == set(), path


def test_the_import_check_can_fail() -> None:
    planted = "def f():\n    from experiments.e5.measures.edges import measure_edges\n"
    allowed = ("experiments.e5.view", "experiments.e5.common")
    assert strays(planted, allowed) == {"experiments.e5.measures.edges"}
