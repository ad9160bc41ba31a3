"""The probe registry: :func:`probe` registers a function under a name, a class and a defect."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CLASSES", "PROBES", "Probe", "ProbeFailed", "check", "probe"]

CLASSES = ("data-loss", "security", "robustness")


class ProbeFailed(AssertionError):
    """The defect showed: ctxlab lost, leaked, crashed untyped or did unbounded work."""


@dataclass(frozen=True)
class Probe:
    name: str
    kind: str
    """One of :data:`CLASSES`."""
    defect: int
    """The defect it reproduces, by its number in docs/probes.md."""
    run: Callable[[Path], None]
    """Runs in its own process with a scratch folder; raises on failure."""


PROBES: dict[str, Probe] = {}


def probe(
    name: str, kind: str, defect: int, variants: Iterable[Any] | None = None
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register ``function(folder)``, or ``function(folder, variant)`` once per variant as
    ``name[variant]``."""
    if kind not in CLASSES:
        raise ValueError(f"unknown probe class {kind!r}")

    def register(function: Callable[..., None]) -> Callable[..., None]:
        if variants is None:
            _add(Probe(name, kind, defect, function))
        else:
            for variant in variants:
                bound = _bind(function, variant)
                _add(Probe(f"{name}[{variant}]", kind, defect, bound))
        return function

    return register


def _bind(function: Callable[..., None], variant: Any) -> Callable[[Path], None]:
    return lambda folder: function(folder, variant)


def _add(found: Probe) -> None:
    if found.name in PROBES:
        raise ValueError(f"two probes are named {found.name}")
    PROBES[found.name] = found


def check(condition: object, message: str) -> None:
    """Fail the probe with ``message`` unless ``condition`` holds."""
    if not condition:
        raise ProbeFailed(message)
