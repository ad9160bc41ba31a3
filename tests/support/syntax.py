"""Python sources parsed once per test process.

The layout tests (tests/project) read the same ~570 modules of ``harness/``, ``lab/``,
``experiments/`` and ``tests/`` again and again, each test parsing every file anew: about 3,100
``ast.parse`` calls, most of those tests' CPU. A source text is parsed once here and its tree
shared: callers read it, never change it. (Keeping each tree's list of nodes as well cost more
than walking it again: the first test paid for lists the others never read.)
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator

CACHED = 2048
"""How many distinct sources are kept (more than the tree holds)."""

XDIST_GROUP = "parsed-sources"
"""The pytest-xdist group of every test module that parses the whole tree: under ``pytest -n 2``
they run on one worker, so the tree is parsed once per session, not once per worker (about 4 s of
CPU each time: the held-out isolation test ran on one worker, the layout tests on the other)."""


@functools.lru_cache(maxsize=CACHED)
def parsed(source: str) -> ast.Module:
    """The tree of ``source`` (shared: do not change it)."""
    return ast.parse(source)


def walked(source: str) -> Iterator[ast.AST]:
    """Every node of ``source``'s tree, in :func:`ast.walk`'s order (shared: do not change
    them)."""
    return ast.walk(parsed(source))


__all__ = ["XDIST_GROUP", "parsed", "walked"]
