"""The installed ctxlab's version, as every file it writes records it."""

from __future__ import annotations

from importlib import metadata

__all__ = ["ctxlab_version"]


def ctxlab_version() -> str:
    """The installed ctxlab's version, or ``unknown`` when it runs without being installed."""
    try:
        return metadata.version("ctxlab")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source tree not installed
        return "unknown"
