"""The library's shape, checked from its source with ``ast``: small modules and functions, no
import cycle at import time, and nothing from the suite (``experiments``) inside ``harness``."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.paths import ROOT
from support.syntax import XDIST_GROUP, parsed, walked

pytestmark = pytest.mark.xdist_group(XDIST_GROUP)  # the tree parsed once per session

HARNESS = ROOT / "harness"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 40

KNOWN_LONG_FUNCTIONS: set[str] = set()
KNOWN_LONG_MODULES: set[str] = set()


def modules() -> list[Path]:
    return sorted(HARNESS.rglob("*.py"))


def name_of(path: Path) -> str:
    parts = path.relative_to(HARNESS.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def where(path: Path) -> str:
    return path.relative_to(HARNESS.parent).as_posix()


def functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, int]]:
    """(qualified name, lines from ``def`` to its last line) of every function, nested too."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert node.end_lineno is not None
            yield prefix + node.name, node.end_lineno - node.lineno + 1
            yield from functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from functions(node, f"{prefix}{node.name}.")
        else:
            yield from functions(node, prefix)


def test_no_module_is_over_400_lines() -> None:
    long = {
        where(p): n
        for p in modules()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert {k: v for k, v in long.items() if k not in KNOWN_LONG_MODULES} == {}


def test_no_function_is_over_40_lines() -> None:
    long = {
        f"{where(p)}:{name}": n
        for p in modules()
        for name, n in functions(parsed(p.read_text(encoding="utf-8")))
        if n > MAX_FUNCTION_LINES
    }
    assert {k: v for k, v in long.items() if k not in KNOWN_LONG_FUNCTIONS} == {}
    assert set(long) >= KNOWN_LONG_FUNCTIONS, "a known long function was shortened: drop it"


def test_the_size_check_can_fail() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    ((name, lines),) = functions(ast.parse(f"class C:\n  def f(self):\n{body}\n"))
    assert (name, lines) == ("C.f", MAX_FUNCTION_LINES + 1)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_at_import_time(tree: ast.AST, typing: bool = False) -> Iterator[str]:
    """Modules a module imports when it is imported: top level, not inside a function, and not
    under TYPE_CHECKING unless ``typing``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.If) and (typing or not _is_type_checking(node)):
            yield from imports_at_import_time(node, typing)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, *(h.body for h in node.handlers)):
                yield from imports_at_import_time(ast.Module(body=block, type_ignores=[]), typing)


def import_graph(typing: bool = False) -> dict[str, set[str]]:
    """Module -> the harness modules it imports; a package's own modules importing it back
    (while it is initialised) are left out, as that cannot bite."""
    known = {name_of(p): p for p in modules()}
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        targets = set()
        tree = parsed(path.read_text(encoding="utf-8"))
        for target in imports_at_import_time(tree, typing):
            parts = target.split(".")
            # importing a.b.c runs a, a.b and a.b.c
            targets |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)} & set(known)
        graph[name] = {t for t in targets - {name} if not name.startswith(t + ".")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_between_harness_modules() -> None:
    assert cycles(import_graph()) == []


def test_type_only_imports_add_one_cycle_only_errors_to_results() -> None:
    """``AgentError.partial`` names :class:`CallResult` (as openai-agents' exceptions name
    their ``RunErrorDetails``); no other type-only import closes a cycle (``hooks`` no longer
    needs ``agent``)."""
    graph = import_graph(typing=True)
    assert cycles(graph) != []  # the one edge below closes one
    graph["harness.errors"].discard("harness.results")
    assert cycles(graph) == []


def test_the_cycle_check_can_fail() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("lower", ["harness.results", "harness.hooks", "harness.errors"])
def test_the_records_and_hooks_need_neither_the_loop_nor_memory(lower: str) -> None:
    graph = import_graph()
    reached, todo = set(), [lower]
    while todo:
        for nxt in graph[todo.pop()] - reached:
            reached.add(nxt)
            todo.append(nxt)
    assert not reached & {"harness.agent", "harness.harness_agent", "harness.memory.runtime"}


def test_harness_never_imports_the_suite() -> None:
    for path in modules():
        for node in walked(path.read_text(encoding="utf-8")):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            bad = [
                n for n in names if n.split(".")[0] in ("experiments", "lab", "benchmarks", "tests")
            ]
            assert not bad, f"{where(path)} imports {bad}"


def test_no_module_of_the_suite_is_over_400_lines() -> None:
    """The 400-line rule holds for the suite and the benchmarks too."""
    root = HARNESS.parent
    long = {
        p.relative_to(root).as_posix(): n
        for folder in ("lab", "experiments", "benchmarks")
        for p in sorted((root / folder).rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_the_layout_page_names_every_harness_module() -> None:
    """``docs/layout.md`` ("What is in the box") names each module and package of ``harness/``
    (so the table cannot fall behind the tree)."""
    box = (HARNESS.parent / "docs" / "layout.md").read_text(encoding="utf-8")
    rows = {
        line.split("|")[1].strip().strip("`"): line
        for line in box.splitlines()
        if line.startswith("| `harness/")
    }
    missing = []
    for folder in [HARNESS, *sorted(p for p in HARNESS.iterdir() if (p / "__init__.py").is_file())]:
        row = rows.get(folder.relative_to(HARNESS.parent).as_posix() + "/", "")
        for child in sorted(folder.iterdir()):
            name = child.stem if child.suffix == ".py" else child.name
            if name.startswith("_") or not (
                child.suffix == ".py" or (child / "__init__.py").exists()
            ):
                continue
            if folder != HARNESS or child.suffix == ".py":
                token = f"`{name}`" if child.suffix == ".py" else f"`{name}/`"
                if token not in row:
                    missing.append(f"{child.relative_to(HARNESS.parent).as_posix()}")
    assert missing == []
