"""Reading an experiment's JSON while checking its shape.

The hand-written readers of the X experiments (E1-E5 read typed views through
:func:`experiments.views.from_data`) go through these helpers, which raise
:class:`ShapeError` when a key is missing or holds another type than expected;
:func:`.per_experiment.read_view` turns that into "render this experiment generically" instead
of a crash.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from experiments.views import ShapeError

__all__ = ["ShapeError", "get", "ints", "objects", "strings"]


def get(data: Any, key: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
    """``data[key]``, checked to be a ``kind``; None when ``optional`` and absent or null."""
    if not isinstance(data, Mapping):
        raise ShapeError(f"expected an object holding {key!r}, found {type(data).__name__}")
    if key not in data or (optional and data[key] is None):
        if optional:
            return None
        raise ShapeError(f"missing key {key!r}")
    value = data[key]
    # bool is an int to Python, but a count of True messages is a shape error.
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise ShapeError(f"{key!r} should not be a boolean")
    if not isinstance(value, kind):
        raise ShapeError(f"{key!r} holds a {type(value).__name__}")
    return value


def objects(data: Any, key: str) -> list[Mapping[str, Any]]:
    """``data[key]``, checked to be a list of objects."""
    items = get(data, key, list)
    if not all(isinstance(item, Mapping) for item in items):
        raise ShapeError(f"{key!r} should hold objects only")
    return items


def ints(data: Any, key: str) -> tuple[int, ...]:
    """``data[key]``, checked to be a list of integers (booleans excluded)."""
    values = get(data, key, list)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise ShapeError(f"{key!r} should hold integers only")
    return tuple(values)


def strings(data: Any, key: str) -> tuple[str, ...]:
    """``data[key]``, checked to be a list of strings."""
    values = get(data, key, list)
    if not all(isinstance(v, str) for v in values):
        raise ShapeError(f"{key!r} should hold strings only")
    return tuple(values)
