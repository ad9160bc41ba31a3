"""Deprecated alias of :mod:`harness.harness_agent`, kept for code outside the tree for one release
(issue 21 moved the module); importing it warns."""

from __future__ import annotations

import warnings

from harness.harness_agent import *  # noqa: F403
from harness.harness_agent import __all__  # noqa: F401

warnings.warn(
    "harness.builder is deprecated: import harness.harness_agent instead",
    DeprecationWarning,
    stacklevel=2,
)
