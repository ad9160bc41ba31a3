"""One schema for an experiment's measurements: the experiment builds frozen view dataclasses,
writes them with :func:`to_data`, and the reports read them back with :func:`from_data`.

:func:`from_data` is the generic inverse of :func:`dataclasses.asdict` for the types views use
(``int``, ``float``, ``str``, ``bool``, ``None``, unions, ``Literal``, ``tuple``, ``list``,
``dict``, ``Any`` and nested dataclasses). It checks the shape as it goes and raises
:class:`ShapeError`, naming where, when the JSON does not fit; a view's ``__post_init__`` may
raise :class:`ValueError` for what a type cannot say (a share between 0 and 1), which is turned
into a :class:`ShapeError` too. Keys the view does not declare are ignored.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

__all__ = ["ShapeError", "from_data", "to_data"]

T = TypeVar("T")


class ShapeError(ValueError):
    """An experiment's JSON lacks a key or holds a value of another type than expected."""


def to_data(view: Any) -> dict[str, Any]:
    """The view as JSON-ready data (:func:`dataclasses.asdict`)."""
    return dataclasses.asdict(view)


def from_data(cls: type[T], data: Any) -> T:
    """Read ``data`` (as :func:`to_data` wrote it) back into the dataclass ``cls``."""
    value: T = _read(cls, data, cls.__name__)
    return value


def _read(hint: Any, value: Any, where: str) -> Any:
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _read_dataclass(hint, value, where)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        return _read_union(args, value, where)
    if origin is typing.Literal:
        if value not in args:
            raise ShapeError(f"{where} is {value!r}, not one of {', '.join(map(repr, args))}")
        return value
    if origin in (tuple, list):
        return _read_sequence(origin, args, value, where)
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        return _read_mapping(args, value, where)
    return _read_scalar(hint, value, where)


def _read_dataclass(cls: type, value: Any, where: str) -> Any:
    if not isinstance(value, Mapping):
        raise ShapeError(f"{where} should be an object, not {type(value).__name__}")
    hints = _type_hints(cls)
    fields: dict[str, Any] = {}
    for field in _init_fields(cls):
        if field.name not in value:
            if (
                field.default is dataclasses.MISSING
                and field.default_factory is dataclasses.MISSING
            ):
                raise ShapeError(f"{where} lacks the key {field.name!r}")
            continue
        fields[field.name] = _read(hints[field.name], value[field.name], f"{where}.{field.name}")
    try:
        return cls(**fields)
    except ValueError as error:
        raise ShapeError(f"{where}: {error}") from error


@functools.cache
def _type_hints(cls: type) -> dict[str, Any]:
    """The dataclass's resolved field types, once per class (a view holds thousands of rows of
    a few classes, and resolving the annotations evaluates each one's source again)."""
    return typing.get_type_hints(cls)


@functools.cache
def _init_fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    return tuple(field for field in dataclasses.fields(cls) if field.init)


def _read_union(args: tuple[Any, ...], value: Any, where: str) -> Any:
    if value is None:
        if type(None) in args:
            return None
        raise ShapeError(f"{where} is null")
    problems = []
    for arg in (a for a in args if a is not type(None)):
        try:
            return _read(arg, value, where)
        except ShapeError as error:
            problems.append(str(error))
    raise ShapeError("; ".join(problems))


def _read_sequence(origin: type, args: tuple[Any, ...], value: Any, where: str) -> Any:
    if not isinstance(value, list | tuple):
        raise ShapeError(f"{where} should be a list, not {type(value).__name__}")
    if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        if len(value) != len(args):
            raise ShapeError(f"{where} should hold {len(args)} items, not {len(value)}")
        return tuple(
            _read(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value, strict=True))
        )
    item = args[0] if args else Any
    items = [_read(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    return tuple(items) if origin is tuple else items


def _read_mapping(args: tuple[Any, ...], value: Any, where: str) -> Any:
    if not isinstance(value, Mapping):
        raise ShapeError(f"{where} should be an object, not {type(value).__name__}")
    item = args[1] if len(args) == 2 else Any
    return {str(k): _read(item, v, f"{where}.{k}") for k, v in value.items()}


def _read_scalar(hint: Any, value: Any, where: str) -> Any:
    if hint is None or hint is type(None):
        if value is not None:
            raise ShapeError(f"{where} should be null")
        return None
    # bool is an int to Python, but a count of True messages is a shape error.
    if isinstance(value, bool) and hint is not bool:
        raise ShapeError(f"{where} should not be a boolean")
    if hint is float and isinstance(value, int):
        return float(value)
    if not isinstance(value, hint):
        raise ShapeError(f"{where} should be {hint.__name__}, not {type(value).__name__}")
    return value
