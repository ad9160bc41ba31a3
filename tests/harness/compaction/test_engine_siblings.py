"""The two compaction engines are siblings: what both use (the record of one compaction, the
cutoff) lives in :mod:`harness.compaction.record`, and neither engine's package imports the
other's."""

from __future__ import annotations

import ast
from pathlib import Path

import harness

COMPACTION = Path(harness.__file__).parent / "compaction"


def imported_modules(source: str) -> set[str]:
    """Every module a source imports, wherever the import sits (function-level included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def reaches(package: str, other: str) -> dict[str, set[str]]:
    """The modules of ``compaction/<package>`` that import ``harness.compaction.<other>``."""
    target = f"harness.compaction.{other}"
    hits = {}
    for path in sorted((COMPACTION / package).rglob("*.py")):
        bad = {m for m in imported_modules(path.read_text(encoding="utf-8")) if
               m == target or m.startswith(target + ".")}  # fmt: skip
        if bad:
            hits[path.relative_to(COMPACTION).as_posix()] = bad
    return hits


def test_dsh_never_imports_the_agentscope_engine() -> None:
    assert reaches("dsh", "agentscope") == {}


def test_dsh_takes_the_compaction_record_from_its_own_module() -> None:
    engine = (COMPACTION / "dsh" / "engine.py").read_text(encoding="utf-8")
    assert "harness.compaction.record" in imported_modules(engine)


def test_the_sibling_check_can_fail() -> None:
    source = "def f():\n    from harness.compaction.agentscope import CompactionRecord\n"
    assert imported_modules(source) == {"harness.compaction.agentscope"}
