"""The held-out split stays held out: only its own package, the corpus's dispatch
(``experiments/x_bench/corpus.py``) and the held-out generator's own tests import
``experiments.x_bench.heldout``; and nothing under ``harness/`` or the profile's and gate's tests
(``tests/harness/**``, any test of the gate or the profile) even names the split, so the profile
can be neither written nor tuned against it (issue 42: the held-out corpus is the test, not the
training set). A planted import or mention is found wherever it hides."""

from __future__ import annotations

import ast
import unicodedata
from collections.abc import Mapping
from pathlib import Path

import pytest
from support.paths import ROOT
from support.syntax import XDIST_GROUP, walked
from test_suite_layout import _LOADERS, _loaded_name

pytestmark = pytest.mark.xdist_group(XDIST_GROUP)  # the tree parsed once per session

HELDOUT = "experiments.x_bench.heldout"
TREES = ("harness", "lab", "experiments", "tests", "benchmarks", "probes", "scripts")
MAY_IMPORT = (
    "experiments/x_bench/heldout/",  # the package itself
    "experiments/x_bench/corpus.py",  # the dispatch: generate(split="heldout")
    "tests/experiments/test_bench_heldout.py",  # the generator's own tests
    "tests/project/test_heldout_isolation.py",  # this test's planted examples
)
MENTIONS = ("heldout", "held-out", "held_out", "held out")


def _python_sources() -> dict[str, str]:
    return {
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for tree in TREES
        for path in sorted((ROOT / tree).rglob("*.py"))
    }


def _targets(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        return [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    if isinstance(node, ast.Call) and (loaded := _loaded_name(node)) is not None:
        return [loaded]
    return []


def may_import_heldout(source: str) -> bool:
    """Whether ``source`` can hold an import :func:`heldout_imports` finds: an import statement
    names the package in its identifiers (which Python reads NFKC-normalised, so they are
    compared so), a loaded name is handed to ``import_module`` or ``__import__`` (its string may
    spell the package with escapes). Only these are parsed: parsing all ~650 files of the tree
    cost 3.5-4.8 s of CPU of this one test (``--cpu-durations``), and nearly none of them name
    the split."""
    if any(loader in source for loader in _LOADERS):
        return True
    return "heldout" in (source if source.isascii() else unicodedata.normalize("NFKC", source))


def heldout_imports(sources: Mapping[str, str]) -> list[str]:
    """``<file>:<line>`` of every import of the held-out package: import statements anywhere
    (``from experiments.x_bench import heldout`` too, under ``if TYPE_CHECKING`` too) and module
    names handed to ``import_module`` or ``__import__``."""
    found = []
    for name, source in sources.items():
        if not may_import_heldout(source):
            continue
        for node in walked(source):
            hits = [t for t in _targets(node) if t == HELDOUT or t.startswith(f"{HELDOUT}.")]
            found += [f"{name}:{node.lineno}"] if hits else []
    return sorted(set(found))


def _profile_files(root: Path) -> dict[str, str]:
    """Every file of ``harness/`` and of the tests of the harness, the gate and the profile."""
    picked = [*(root / "harness").rglob("*"), *(root / "tests" / "harness").rglob("*")]
    picked += [p for p in (root / "tests").rglob("*.py") if "gate" in p.name or "profile" in p.name]
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(set(picked))
        if p.is_file() and "__pycache__" not in p.parts
    }


def mentions(files: Mapping[str, str]) -> list[str]:
    return [name for name, text in files.items() if any(m in text.lower() for m in MENTIONS)]


def test_only_the_dispatch_and_the_packages_own_tests_import_the_heldout_split() -> None:
    sources = _python_sources()
    outside = {n: s for n, s in sources.items() if not n.startswith(MAY_IMPORT)}
    assert heldout_imports(outside) == []
    # the check sees the one real importer (else it would pass by seeing nothing)
    corpus = "experiments/x_bench/corpus.py"
    assert heldout_imports({corpus: sources[corpus]})


def test_nothing_in_the_harness_or_the_profiles_tests_names_the_heldout_split() -> None:
    files = _profile_files(ROOT)
    assert any(name.startswith("tests/harness/") for name in files)
    assert "tests/experiments/test_x_gate.py" in files
    assert mentions(files) == []


PLANTED = {
    "a.py": f"from {HELDOUT} import generate_heldout\n",
    "b.py": "from experiments.x_bench import heldout\n",
    "c.py": f"def f():\n    import {HELDOUT}.en_facts\n",
    "d.py": f"if TYPE_CHECKING:\n    from {HELDOUT}.phrasing import Phrasing\n",
    "e.py": f"import importlib\nimportlib.import_module('{HELDOUT}')\n",
    "f.py": f"__import__(f'{HELDOUT}.zh_facts')\n",
}


PLANTED_IN_DISGUISE = {
    "g.py": "import importlib\nimportlib.import_module('experiments.x_bench.held\\x6fut')\n",
    "h.py": "from experiments.x_bench import \uff48eldout\n",  # a fullwidth h: NFKC reads h
}


def test_a_planted_import_is_found_wherever_it_hides() -> None:
    assert [line.split(":")[0] for line in heldout_imports(PLANTED)] == sorted(PLANTED)
    disguised = heldout_imports(PLANTED_IN_DISGUISE)
    assert [line.split(":")[0] for line in disguised] == sorted(PLANTED_IN_DISGUISE)
    clean = {"ok.py": "from experiments.x_bench.corpus import generate\nimport heldout_like\n"}
    assert heldout_imports(clean) == []


def test_a_planted_mention_in_a_harness_test_is_found(tmp_path: Path) -> None:
    planted = tmp_path / "tests" / "harness" / "compaction" / "test_new.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("CORPUS = generate(1, '2k', 'en', 'heldout')\n", encoding="utf-8")
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "notes.md").write_text("tuned on the Held-Out split\n")
    (tmp_path / "tests" / "experiments").mkdir()
    (tmp_path / "tests" / "experiments" / "test_profile_x.py").write_text("x = 'held_out'\n")
    assert mentions(_profile_files(tmp_path)) == [
        "harness/notes.md",
        "tests/experiments/test_profile_x.py",
        "tests/harness/compaction/test_new.py",
    ]
