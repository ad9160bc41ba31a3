"""Deprecated alias of :mod:`harness.compaction.dsh.selection` (``Measurement``, ``measure``) and
:mod:`harness.meter.dsh_heuristic` (the prices), kept for code outside the tree for one release
(issue 21 merged the module into the selection); importing it warns."""

from __future__ import annotations

import warnings

from harness.compaction.dsh.selection import Measurement, measure
from harness.meter.dsh_heuristic import price_message, price_text

__all__ = ["Measurement", "measure", "price_message", "price_text"]

warnings.warn(
    "harness.compaction.dsh.meter is deprecated: import harness.compaction.dsh.selection instead",
    DeprecationWarning,
    stacklevel=2,
)
