"""Deprecated alias of :mod:`harness.tools` (large tool result offload), kept for code outside
the tree for one release (issue 21 merged the module into it); importing it warns."""

from __future__ import annotations

import warnings

from harness.tools import OFFLOAD_EXCLUDED_TOOLS, LargeResultOffloader

__all__ = ["OFFLOAD_EXCLUDED_TOOLS", "LargeResultOffloader"]

warnings.warn(
    "harness.tool_offload is deprecated: import harness.tools instead",
    DeprecationWarning,
    stacklevel=2,
)
