"""Old import paths that code outside the tree may use (issue 21 moved the modules) still work
for one release, and say so with a DeprecationWarning."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from types import ModuleType

import pytest

MOVED = [
    # (old path, new path, one of its names): the module moved whole, its __all__ with it
    ("harness.builder", "harness.harness_agent", "HarnessAgent"),
    ("harness.files", "harness.fs.files", "write_atomic"),
    ("harness.compaction.gate", "harness.compaction.guards.gate", "GateConfig"),
    (
        "harness.compaction.gate_definitions",
        "harness.compaction.guards.gate_definitions",
        "extract_definitions",
    ),
    ("harness.compaction.thrash", "harness.compaction.guards.thrash", "ThrashGuard"),
]

MERGED = [
    # (old path, the modules its names now live in, the first named by the warning)
    ("harness.compaction.agentscope.prune_gate", ("harness.compaction.agentscope.prune",)),
    ("harness.tokens", ("harness.meter.pricers", "harness.meter.windows")),
    (
        "harness.compaction.dsh.meter",
        ("harness.compaction.dsh.selection", "harness.meter.dsh_heuristic"),
    ),
    ("harness.tool_offload", ("harness.tools",)),
    ("harness.interrupted", ("harness.replies",)),
]

OLD_PATHS = [old for old, *_ in MOVED + MERGED]


def fresh_import(old: str, new: str) -> ModuleType:
    """Import ``old`` again (a fresh import runs the module, so it warns), checking the
    warning names ``new``."""
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated: import {new}"):
        return importlib.import_module(old)


@pytest.mark.parametrize(("old", "new", "name"), MOVED)
def test_an_old_path_warns_and_gives_the_same_objects(old: str, new: str, name: str) -> None:
    alias = fresh_import(old, new)
    module = importlib.import_module(new)
    assert getattr(alias, name) is getattr(module, name)
    assert alias.__all__ == module.__all__
    assert all(getattr(alias, n) is getattr(module, n) for n in module.__all__)


@pytest.mark.parametrize(("old", "new"), MERGED)
def test_a_merged_path_warns_and_gives_the_same_objects(old: str, new: tuple[str, ...]) -> None:
    """Each name the old module exported is the very object of the module it went to, and
    that module exports it."""
    alias = fresh_import(old, new[0])
    modules = [importlib.import_module(n) for n in new]
    for name in alias.__all__:
        if name == "PruneGate":
            continue  # the old name of a renamed class, below
        (home,) = [m for m in modules if name in m.__all__]
        assert getattr(alias, name) is getattr(home, name), name


def test_prune_gate_is_the_prune_forecast_under_its_old_name() -> None:
    alias = fresh_import(
        "harness.compaction.agentscope.prune_gate", "harness.compaction.agentscope.prune"
    )
    prune = importlib.import_module("harness.compaction.agentscope.prune")
    assert alias.PruneGate is prune.PruneForecast
    assert not hasattr(prune, "PruneGate")  # the old name lives in the alias only
    assert set(prune.__all__) <= set(alias.__all__)


def test_the_old_estimator_constants_are_still_there() -> None:
    """``harness.tokens`` exported more than its ``__all__`` said (``CHARS_PER_TOKEN`` was
    imported by name); the alias keeps those too."""
    alias = fresh_import("harness.tokens", "harness.meter.pricers")
    pricers = importlib.import_module("harness.meter.pricers")
    for name in ("CHARS_PER_TOKEN", "MESSAGE_OVERHEAD", "TOOL_CALL_OVERHEAD"):
        assert getattr(alias, name) is getattr(pricers, name)


def test_agentscope_engine_from_its_old_module_warns_and_is_the_same_class() -> None:
    from harness.compaction import engine
    from harness.compaction.agentscope.engine import AgentScopeEngine

    with pytest.warns(
        DeprecationWarning,
        match="harness.compaction.engine.AgentScopeEngine is deprecated: "
        "import harness.compaction.agentscope.engine",
    ):
        assert engine.AgentScopeEngine is AgentScopeEngine
    assert "AgentScopeEngine" not in engine.__all__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
            _ = engine.Nothing


def _fresh_process(code: str) -> str:
    """What ``code`` prints in a new interpreter where a DeprecationWarning is an error."""
    return subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", code],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def test_the_protocol_loads_no_engine() -> None:
    """``harness.compaction.engine`` imports neither engine; the old name is resolved lazily."""
    code = (
        "import sys, harness.compaction.engine; "
        "print(sorted(m for m in sys.modules if m.endswith('.engine')))"
    )
    assert _fresh_process(code) == "['harness.compaction.engine']"


def test_nothing_in_the_tree_imports_an_old_path() -> None:
    """The warning is for code outside the tree: the harness and the suite import cleanly."""
    for old in OLD_PATHS:
        sys.modules.pop(old, None)
    import harness.harness_agent  # noqa: F401
    import lab.registry  # noqa: F401

    assert [old for old in OLD_PATHS if old in sys.modules] == []


def test_nothing_in_the_tree_imports_an_old_path_in_a_fresh_process() -> None:
    """The same, from nothing loaded, with the warning an error: the suite, the harness and
    every mutation target import without one."""
    code = (
        "import sys, lab.registry, harness.harness_agent, "
        "experiments.mutations.catalogue, experiments.mutations.catalogue_safeguards; "
        f"print([m for m in {OLD_PATHS!r} if m in sys.modules])"
    )
    assert _fresh_process(code) == "[]"
