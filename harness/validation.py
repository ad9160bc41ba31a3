"""Checks for numeric settings, so a bad value is refused where it is set, by its own name.

Each helper returns the value when it is acceptable and raises :class:`ConfigError` naming the
setting otherwise. ``bool`` is never a number here (``True`` is not 1 second), NaN and the
infinities are never accepted, and floats are not accepted where a whole number is expected.
"""

from __future__ import annotations

import math
from typing import Any

from harness.errors import ConfigError

__all__ = ["count", "seconds", "whole_number"]


def whole_number(name: str, value: Any, *, minimum: int = 0) -> int:
    """``value`` if it is an ``int`` (not a bool) of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{name} must be a whole number of at least {minimum}, not {value!r}.")
    return value


def count(name: str, value: Any) -> int:
    """``value`` if it is a positive ``int``."""
    return whole_number(name, value, minimum=1)


def seconds(name: str, value: Any, *, allow_zero: bool = False) -> float:
    """``value`` as a float if it is a finite positive number of seconds (or 0 when allowed)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{name} must be a number of seconds, not {value!r}.")
    number = float(value)
    if not math.isfinite(number) or number < 0 or (number == 0 and not allow_zero):
        least = "0 or more" if allow_zero else "more than 0"
        raise ConfigError(f"{name} must be a finite number of seconds, {least}, not {value!r}.")
    return number
