"""Every name an experiment imports from a ``lab`` module is one of ``lab.__all__``, so each
experiment can import it as ``from lab import …`` (a submodule, such as ``lab.sharding``, is
imported as a module and needs no entry)."""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.paths import ROOT
from support.syntax import XDIST_GROUP, walked

import lab

pytestmark = pytest.mark.xdist_group(XDIST_GROUP)  # the tree parsed once per session


def lab_imports(root: Path) -> Iterator[tuple[str, str, str]]:
    """(where, module, name) for every ``from lab… import name`` under ``root``, at the top or
    inside a function."""
    for path in sorted(root.rglob("*.py")):
        for node in walked(path.read_text(encoding="utf-8")):
            if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
                continue
            if node.module == "lab" or node.module.startswith("lab."):
                for alias in node.names:
                    yield f"{path.relative_to(root.parent)}:{node.lineno}", node.module, alias.name


def _submodule(module: str, name: str) -> bool:
    try:
        return importlib.util.find_spec(f"{module}.{name}") is not None
    except ModuleNotFoundError:  # ``module`` is a module, not a package
        return False


def missing(root: Path, public: list[str]) -> list[str]:
    return [
        f"{where}: {name} (from {module})"
        for where, module, name in lab_imports(root)
        if name not in public and not _submodule(module, name)
    ]


def test_every_name_experiments_import_from_lab_is_public() -> None:
    found = missing(ROOT / "experiments", lab.__all__)
    assert not found, "add to lab.__all__ (lab/__init__.py):\n" + "\n".join(found)


def test_the_check_can_fail(tmp_path: Path) -> None:
    folder = tmp_path / "experiments"
    folder.mkdir()
    (folder / "toy.py").write_text(
        "from lab import sharding\nfrom lab.claims import cite\n"
        "def f():\n    from lab.report.tables import SCRIPTED_MODEL\n",
        encoding="utf-8",
    )
    assert missing(folder, ["cite"]) == [
        "experiments/toy.py:4: SCRIPTED_MODEL (from lab.report.tables)"
    ]
