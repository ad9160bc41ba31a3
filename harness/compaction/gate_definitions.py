"""Deprecated alias of :mod:`harness.compaction.guards.gate_definitions`, kept for code outside
the tree for one release (issue 21 moved the module); importing it warns."""

from __future__ import annotations

import warnings

from harness.compaction.guards.gate_definitions import *  # noqa: F403
from harness.compaction.guards.gate_definitions import __all__  # noqa: F401

warnings.warn(
    "harness.compaction.gate_definitions is deprecated: "
    "import harness.compaction.guards.gate_definitions instead",
    DeprecationWarning,
    stacklevel=2,
)
