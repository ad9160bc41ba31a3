"""Deprecated alias of :mod:`harness.compaction.guards.gate`, kept for code outside the tree for
one release (issue 21 moved the module); importing it warns."""

from __future__ import annotations

import warnings

from harness.compaction.guards.gate import *  # noqa: F403
from harness.compaction.guards.gate import __all__  # noqa: F401

warnings.warn(
    "harness.compaction.gate is deprecated: import harness.compaction.guards.gate instead",
    DeprecationWarning,
    stacklevel=2,
)
