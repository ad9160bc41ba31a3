"""``harness.__all__`` is pinned (as httpx's tests/harness/test_exported_members.py pins its own),
every
name in it resolves, and ``import harness`` stays cheap."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

import harness

PUBLIC = [
    "Agent",
    "AgentError",
    "CallResult",
    "ChatClient",
    "CompactionConfig",
    "CompactionEngine",
    "CompactionError",
    "ConfigError",
    "ContextLengthExceededError",
    "CtxlabError",
    "DshConfig",
    "FunctionModel",
    "HarnessAgent",
    "MemoryConfig",
    "Message",
    "ModelError",
    "RequestRecord",
    "ScriptedModel",
    "Step",
    "StepLimitExceededError",
    "Tool",
    "ToolCall",
    "make_engine",
]


def test_all_is_pinned() -> None:
    assert harness.__all__ == PUBLIC


@pytest.mark.parametrize("name", PUBLIC)
def test_every_exported_name_resolves_to_its_harness_definition(name: str) -> None:
    value = getattr(harness, name)
    assert value.__module__.startswith("harness."), value
    assert value.__name__ == name


def test_nothing_else_is_public() -> None:
    for name in PUBLIC:
        getattr(harness, name)
    public = {
        name
        for name in dir(harness)
        if not name.startswith("_")
        and not isinstance(getattr(harness, name), types.ModuleType)  # loaded submodules
        and name not in ("annotations", "importlib", "TYPE_CHECKING", "Any")
    }
    assert public == set(PUBLIC)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        harness.Nope  # noqa: B018


def test_import_harness_loads_nothing_else() -> None:
    probe = (
        "import sys, harness\n"
        "print(sorted(m for m in sys.modules if m.startswith(('harness.', 'httpx'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_star_import_gives_exactly_the_public_names() -> None:
    namespace: dict[str, object] = {}
    exec("from harness import *", namespace)
    assert sorted(k for k in namespace if k != "__builtins__") == sorted(PUBLIC)
