"""Deprecated alias of :mod:`harness.fs.files`, kept for code outside the tree for one release
(issue 21 moved the module); importing it warns."""

from __future__ import annotations

import warnings

from harness.fs.files import *  # noqa: F403
from harness.fs.files import __all__  # noqa: F401

warnings.warn(
    "harness.files is deprecated: import harness.fs.files instead",
    DeprecationWarning,
    stacklevel=2,
)
