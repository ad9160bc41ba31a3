"""A string constant of an installed package, read from its module's source without importing it.

X-BENCH's ``reference`` condition uses one prompt of CompactBench (the user's installed copy; no
copy of its text is in this repository). Importing the module that holds it imports the
package's contracts and pydantic with them, 0.17 s of CPU in every process that plays the
condition, for one string. :func:`constant` finds the module's file through the import system
(nothing of the package runs), parses it and evaluates the literal assigned to the name: a
parenthesised run of string literals, as such prompts are written.

Where the package is not plain files (a zip import), or the name is not assigned a literal at the
top of the module, the module is imported after all and the name read from it.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
from pathlib import Path

__all__ = ["constant"]


def constant(module: str, name: str) -> str | None:
    """The string ``module.name`` of an installed package, or None when the package is not
    installed; :class:`LookupError` when it is but ``name`` is not a string there."""
    head, *rest = module.split(".")
    try:
        spec = importlib.util.find_spec(head)  # finds the package; runs none of it
    except (ImportError, ValueError):  # ValueError: a module in sys.modules without a spec
        return None
    if spec is None:
        return None
    path = _source_in(list(spec.submodule_search_locations or ()), rest)
    if path is not None:
        stat = path.stat()
        found = _literal_in(str(path), stat.st_mtime_ns, stat.st_size, name)
        if isinstance(found, str):
            return found
    return _imported(module, name)


def _source_in(folders: list[str], parts: list[str]) -> Path | None:
    """The source file of the submodule ``parts`` of a package in ``folders``, or None."""
    if not parts:
        return None
    for folder in folders:
        path = Path(folder, *parts[:-1], f"{parts[-1]}.py")
        if path.is_file():
            return path
    return None


_NOT_LITERAL = object()
"""The name is not assigned a literal at the top of the module (the import reads it)."""


@functools.lru_cache(maxsize=8)
def _literal_in(path: str, mtime_ns: int, size: int, name: str) -> object:
    """The literal last assigned to ``name`` at the top of the module at ``path``, else
    :data:`_NOT_LITERAL`; parsed again when the file's time or size changes."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"), filename=path)
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return _NOT_LITERAL
    found: object = _NOT_LITERAL
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            try:
                found = ast.literal_eval(value)  # the last assignment wins, as on import
            except ValueError:
                found = _NOT_LITERAL
    return found


def _imported(module: str, name: str) -> str | None:
    try:
        imported = importlib.import_module(module)
    except ImportError:
        return None
    value = getattr(imported, name, None)
    if not isinstance(value, str):
        raise LookupError(f"{module} has no string {name}")
    return value
