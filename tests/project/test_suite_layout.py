"""The tree's shape beyond the harness: one folder per experiment, listed once in the
manifest; no import cycle anywhere, imports inside functions counted; the 40-line function cap
for the suite too; and no experiment reaching into another experiment's claims."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.paths import ROOT
from test_layering import MAX_FUNCTION_LINES, cycles, functions

from experiments.manifest import MANIFEST
from lab.registry import EXPERIMENTS
from lab.report.experiments import experiment_pages

TREES = ("harness", "experiments")


def _modules() -> dict[str, Path]:
    found = {}
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def runtime_imports(tree: ast.AST) -> Iterator[str]:
    """Every module an import statement names, at the top or inside a function (a deferred
    import is still an edge: it only hides a cycle), except under ``if TYPE_CHECKING``."""
    for node in ast.iter_child_nodes(tree):
        if _type_checking(node):
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        yield from runtime_imports(node)


def runtime_graph(sources: dict[str, str]) -> dict[str, set[str]]:
    """Module -> the known modules it imports (importing a.b.c runs a, a.b and a.b.c); a
    package's own modules importing it back are left out, as in ``test_layering``."""
    graph: dict[str, set[str]] = {}
    for name, source in sources.items():
        targets: set[str] = set()
        for target in runtime_imports(ast.parse(source)):
            parts = target.split(".")
            targets |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)} & set(sources)
        graph[name] = {t for t in targets - {name} if not name.startswith(t + ".")}
    return graph


def test_no_import_cycle_in_the_harness_or_the_suite_counting_imports_inside_functions() -> None:
    sources = {name: path.read_text(encoding="utf-8") for name, path in _modules().items()}
    assert cycles(runtime_graph(sources)) == []


def test_an_import_inside_a_function_closes_a_cycle() -> None:
    sources = {
        "p.a": "from p.b import x\n",
        "p.b": "def f():\n    from p.a import y\n",
        "p.c": "if TYPE_CHECKING:\n    from p.a import z\n",
        "p": "",
    }
    assert cycles(runtime_graph(sources)) == [["p.a", "p.b"]]
    sources["p.b"] = "x = 1\n"
    assert cycles(runtime_graph(sources)) == []


def test_no_function_of_the_suite_is_over_40_lines() -> None:
    long = {
        f"{path.relative_to(ROOT).as_posix()}:{name}": n
        for path in sorted((ROOT / "experiments").rglob("*.py"))
        for name, n in functions(ast.parse(path.read_text(encoding="utf-8")))
        if n > MAX_FUNCTION_LINES
    }
    assert long == {}


def _experiment_of(module: str) -> str | None:
    parts = module.split(".")
    folders = {entry.folder for entry in MANIFEST}
    return parts[1] if len(parts) > 1 and parts[1] in folders else None


def test_no_experiment_reaches_into_another_experiments_claims() -> None:
    """What an experiment borrows from another (X-GATE and X-COST use E3's and E4's runs) is
    imported from that experiment's public name, never from its ``claims``."""
    reaching = []
    for name, path in _modules().items():
        own = _experiment_of(name)
        for target in runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            other = _experiment_of(target)
            if own and other and other != own and target.split(".")[2:3] == ["claims"]:
                reaching.append(f"{name} -> {'.'.join(target.split('.')[:3])}")
    assert sorted(set(reaching)) == []


def test_every_experiment_is_one_folder_listed_once() -> None:
    folders = sorted(
        p.name for p in (ROOT / "experiments").iterdir() if (p / "__init__.py").is_file()
    )
    assert sorted(entry.folder for entry in MANIFEST) == [f for f in folders if f != "lab"]
    assert [entry.id for entry in MANIFEST] == list(EXPERIMENTS) == list(experiment_pages())
    loose = sorted(p.name for p in (ROOT / "experiments").glob("*.py"))
    assert loose == ["__init__.py", "manifest.py"]  # the machinery lives in lab/


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: e.id)
def test_each_folder_holds_its_runner_claims_view_and_page(entry: object) -> None:
    """A view is a module, or a package when the experiment is a group (E5's families)."""
    folder = ROOT / "experiments" / entry.folder  # type: ignore[attr-defined]
    assert {"__init__.py", "page.py"} <= {p.name for p in folder.glob("*.py")}
    assert (folder / "view.py").is_file() or (folder / "view" / "__init__.py").is_file()


def _exporter(module: str, name: str) -> str | None:
    """The shortest package above ``module`` that exports ``name`` (its ``__all__``) as the same
    object, or None."""
    target = getattr(importlib.import_module(module), name, None)
    parts = module.split(".")
    for i in range(1, len(parts)):
        package = importlib.import_module(".".join(parts[:i]))
        if name in getattr(package, "__all__", ()) and getattr(package, name, None) is target:
            return package.__name__
    return None


def test_the_suite_reaches_the_harness_through_its_public_names() -> None:
    """An experiment imports a harness name from the package that exports it (``harness``,
    ``harness.memory`` …), not from the module inside that defines it."""
    deep = []
    for path in sorted((ROOT / "experiments").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
                continue
            if not node.module.startswith("harness."):
                continue
            for alias in node.names:
                public = _exporter(node.module, alias.name)
                if public is not None:
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    deep.append(f"{where}: {alias.name} from {node.module}, not {public}")
    assert not deep, "\n".join(deep)
