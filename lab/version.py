"""The installed ctxlab's version, as every file it writes records it."""

from __future__ import annotations

__all__ = ["ctxlab_version"]


def ctxlab_version() -> str:
    """The installed ctxlab's version, or ``unknown`` when it runs without being installed."""
    from importlib import metadata  # ~30 ms of imports: paid by what writes the version only

    try:
        return metadata.version("ctxlab")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source tree not installed
        return "unknown"
