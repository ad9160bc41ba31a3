"""Deprecated alias of :mod:`harness.compaction.guards.thrash`, kept for code outside the tree for
one release (issue 21 moved the module); importing it warns."""

from __future__ import annotations

import warnings

from harness.compaction.guards.thrash import *  # noqa: F403
from harness.compaction.guards.thrash import __all__  # noqa: F401

warnings.warn(
    "harness.compaction.thrash is deprecated: import harness.compaction.guards.thrash instead",
    DeprecationWarning,
    stacklevel=2,
)
