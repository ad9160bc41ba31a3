"""Claims no harness change can move, and why: they are guards, not reproductions.

A claim listed here reads a constant or a seed's text (a configuration default, a table of the
seed), so no mutation of the catalogue flips it; the matrix labels it a guard with this reason.
"""

from __future__ import annotations

__all__ = ["GUARDS"]

GUARDS: dict[str, str] = {}
