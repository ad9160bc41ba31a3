"""The tree's shape beyond the harness: one folder per experiment, listed once in the manifest; no
import cycle anywhere, imports inside functions counted; the 40-line function cap for the suite
too; no experiment reaching into another experiment's claims; and arrows one way only,
experiments → lab → harness: nothing in ``lab/`` imports the experiments or names a claim."""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from support.paths import ROOT
from support.syntax import XDIST_GROUP, parsed, walked
from test_layering import MAX_FUNCTION_LINES, cycles, functions

from experiments.manifest import MANIFEST
from lab.registry import EXPERIMENTS
from lab.report.experiments import experiment_pages

pytestmark = pytest.mark.xdist_group(XDIST_GROUP)  # the tree parsed once per session

TREES = ("harness", "lab", "experiments")
SUITE_PACKAGE = "experiments"
NOT_EXPERIMENTS = ("mutations",)
"""Folders of ``experiments/`` that hold the suite's content but no experiment."""


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
        for target in runtime_imports(parsed(source)):
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
        for name, n in functions(parsed(path.read_text(encoding="utf-8")))
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
        for target in runtime_imports(parsed(path.read_text(encoding="utf-8"))):
            other = _experiment_of(target)
            if own and other and other != own and target.split(".")[2:3] == ["claims"]:
                reaching.append(f"{name} -> {'.'.join(target.split('.')[:3])}")
    assert sorted(set(reaching)) == []


def test_every_experiment_is_one_folder_listed_once() -> None:
    folders = sorted(
        p.name for p in (ROOT / "experiments").iterdir() if (p / "__init__.py").is_file()
    )
    assert sorted(entry.folder for entry in MANIFEST) == [
        f for f in folders if f not in NOT_EXPERIMENTS
    ]
    assert [entry.id for entry in MANIFEST] == list(EXPERIMENTS) == list(experiment_pages())
    loose = sorted(p.name for p in (ROOT / "experiments").glob("*.py"))
    # the list and where the suite starts; the machinery lives in lab/
    assert loose == ["__init__.py", "__main__.py", "cli.py", "manifest.py", "pytest_plugin.py"]


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
        for node in walked(path.read_text(encoding="utf-8")):
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


# --- one direction: experiments → lab → harness ------------------------------------------------

_LOADERS = ("import_module", "__import__")


def _names_the_suite(module: str) -> bool:
    return module == SUITE_PACKAGE or module.startswith(f"{SUITE_PACKAGE}.")


def _loaded_name(call: ast.Call) -> str | None:
    """The module a call of ``import_module``/``__import__`` loads, when its name is written
    out (a string, or an f-string's leading text)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name not in _LOADERS or not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.JoinedStr) and first.values:
        first = first.values[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def suite_imports(sources: Mapping[str, str]) -> list[str]:
    """``<file>:<line> <module>`` for every import of the suite's package in ``sources``: import
    statements at the top, inside functions and under ``if TYPE_CHECKING``, and the module names
    handed to ``import_module`` or ``__import__``."""
    found = []
    for name, source in sources.items():
        for node in walked(source):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module]
            elif isinstance(node, ast.Call) and (loaded := _loaded_name(node)) is not None:
                targets = [loaded]
            found += [f"{name}:{node.lineno} {t}" for t in targets if _names_the_suite(t)]
    return found


CLAIM_ID = re.compile(r"\b(?:E\d+-|X-[A-Z]+-|AS-|DSH-)")
"""A claim id: ``E3-…``, ``X-BENCH-…``, ``AS-…``, ``DSH-…`` (an experiment id alone is not one)."""


def claim_id_literals(sources: Mapping[str, str]) -> list[str]:
    """``<file>:<line> <id>`` for every claim id written in ``sources`` (code, strings, docstrings
    and comments alike)."""
    return [
        f"{name}:{number} {found.group(0)}"
        for name, source in sources.items()
        for number, line in enumerate(source.splitlines(), 1)
        for found in CLAIM_ID.finditer(line)
    ]


def _lab_sources(
    suffixes: tuple[str, ...] = (".py",), skip: tuple[str, ...] = ()
) -> dict[str, str]:
    return {
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted((ROOT / "lab").rglob("*"))
        if path.suffix in suffixes and path.relative_to(ROOT).as_posix() not in skip
    }


def test_nothing_in_lab_imports_the_experiments() -> None:
    """lab is handed its suite (:mod:`lab.suite`) and names none of it."""
    assert suite_imports(_lab_sources()) == []


PLANTED_IMPORTS = {
    "lab/top.py": "from experiments.manifest import MANIFEST\n",
    "lab/plain.py": "import experiments.e3 as e3\n",
    "lab/inner.py": "def f():\n    from experiments.x_bench import cli\n",
    "lab/typing.py": "if TYPE_CHECKING:\n    from experiments.e3.view import E3View\n",
    "lab/by_name.py": "from importlib import import_module\nimport_module('experiments.e3')\n",
    "lab/by_fstring.py": "import importlib\nimportlib.import_module(f'experiments.{folder}')\n",
    "lab/dunder.py": "__import__('experiments')\n",
}


def test_an_import_of_the_experiments_is_found_wherever_it_hides() -> None:
    found = suite_imports(PLANTED_IMPORTS)
    assert [line.split(":")[0] for line in found] == list(PLANTED_IMPORTS)
    clean = {
        "lab/ok.py": "import experimental\nfrom lab.suite import current\n"
        "import_module(suite.module(entry))\nimport_module(f'{suite.package}.x')\n"
    }
    assert suite_imports(clean) == []


def test_a_planted_import_in_a_lab_tree_fails_the_check(tmp_path: Path) -> None:
    planted = tmp_path / "lab" / "deep" / "module.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("def load():\n    import experiments.x_bench.cli\n", encoding="utf-8")
    sources = {p.as_posix(): p.read_text(encoding="utf-8") for p in tmp_path.rglob("*.py")}
    assert suite_imports(sources) == [f"{planted.as_posix()}:2 experiments.x_bench.cli"]


def test_no_claim_id_is_written_in_lab() -> None:
    """A fact about one claim sits on that claim, in its experiment's folder."""
    templates = (".py", ".j2", ".css", ".js")
    assert claim_id_literals(_lab_sources(templates)) == []


def test_a_planted_claim_id_fails_the_check() -> None:
    planted = {
        "lab/a.py": 'PICKS = {"E3-RECALL": 1}\n',
        "lab/b.py": '"""Example: ``X-BENCH-FULL``."""\n',
        "lab/c.py": "# AS-DEFAULTS reads a constant\nGUARD = 'DSH-REPLAY'\n",
    }
    assert claim_id_literals(planted) == [
        "lab/a.py:1 E3-",
        "lab/b.py:1 X-BENCH-",
        "lab/c.py:1 AS-",
        "lab/c.py:2 DSH-",
    ]
    fine = {"lab/d.py": "ids = ('E3', 'X-BENCH', 'HAS-A', '<claim-id>@<model>')\n"}
    assert claim_id_literals(fine) == []
