"""Old import paths that code outside the tree may use (issue 21 moved the modules) still work
for one release, and say so with a DeprecationWarning."""

from __future__ import annotations

import importlib
import sys

import pytest


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [
        ("harness.builder", "harness.harness_agent", "HarnessAgent"),
        ("harness.files", "harness.fs.files", "write_atomic"),
    ],
)
def test_an_old_path_warns_and_gives_the_same_objects(old: str, new: str, name: str) -> None:
    sys.modules.pop(old, None)  # a fresh import warns (the module runs again)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated: import {new}"):
        alias = importlib.import_module(old)
    assert getattr(alias, name) is getattr(importlib.import_module(new), name)
    assert alias.__all__ == importlib.import_module(new).__all__


def test_nothing_in_the_tree_imports_an_old_path() -> None:
    """The warning is for code outside the tree: the harness and the suite import cleanly."""
    for old in ("harness.builder", "harness.files"):
        sys.modules.pop(old, None)
    import experiments.lab.registry  # noqa: F401
    import harness.harness_agent  # noqa: F401

    assert "harness.builder" not in sys.modules and "harness.files" not in sys.modules
