"""Python sources parsed and walked once per test process.

The layout tests (tests/project) read the same ~570 modules of ``harness/``, ``lab/``,
``experiments/`` and ``tests/`` again and again, each test parsing every file anew: about 3,100
``ast.parse`` calls and their walks, most of those tests' CPU. A source text is parsed (and its
nodes listed) once here and shared; the trees handed out are read, never changed, by their
callers.
"""

from __future__ import annotations

import ast
import functools

CACHED = 2048
"""How many distinct sources are kept (more than the tree holds)."""


@functools.lru_cache(maxsize=CACHED)
def parsed(source: str) -> ast.Module:
    """The tree of ``source`` (shared: do not change it)."""
    return ast.parse(source)


@functools.lru_cache(maxsize=CACHED)
def walked(source: str) -> tuple[ast.AST, ...]:
    """Every node of ``source``'s tree, in :func:`ast.walk`'s order (shared: do not change
    them)."""
    return tuple(ast.walk(parsed(source)))


__all__ = ["parsed", "walked"]
