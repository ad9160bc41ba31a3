"""The generic tools a mutation catalogue builds its patches with (pytest-recording's generic
mutations): replace a function everywhere it was imported, an attribute of a class, several at
once, or a step by nothing. Each returns a :data:`Patch`: a context manager that applies the
mutation, in the process that runs it, for the life of a ``with`` block."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

__all__ = ["Patch", "attr", "many", "nothing", "patch_everywhere", "wrap"]

Patch = Callable[[], Any]
"""Returns a context manager that applies the mutation while it is open."""


def patch_everywhere(module: str, name: str, new: object) -> ExitStack:
    """Replace ``module.name`` and every other loaded module's binding of the same object
    (``from module import name`` copies it), for the life of the returned stack."""
    __import__(module)
    original = getattr(sys.modules[module], name)
    stack = ExitStack()
    for loaded in list(sys.modules.values()):
        namespace = getattr(loaded, "__dict__", None)
        if namespace is not None and namespace.get(name) is original:
            stack.enter_context(mock.patch.object(loaded, name, new))
    return stack


def wrap(module: str, name: str, make: Callable[[Any], object]) -> Patch:
    """``module.name`` replaced everywhere by ``make(original)``."""

    def apply() -> ExitStack:
        __import__(module)
        return patch_everywhere(module, name, make(getattr(sys.modules[module], name)))

    return apply


def attr(target: str, attribute: str, make: Callable[[Any], object]) -> Patch:
    """The attribute of the class ``target`` (``module.Class``) replaced by ``make(original)``."""

    def apply() -> Any:
        module_name, _, owner = target.rpartition(".")
        module = __import__(module_name, fromlist=[owner])
        cls = getattr(module, owner)
        return mock.patch.object(cls, attribute, make(getattr(cls, attribute)))

    return apply


@contextmanager
def many(*patches: Patch) -> Iterator[None]:
    """Every one of ``patches`` at once."""
    with ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch())
        yield


def nothing(_original: Any) -> Any:
    """A replacement that does nothing (a step skipped)."""
    return lambda *args, **kwargs: None
