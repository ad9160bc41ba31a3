"""Deprecated alias of :mod:`harness.replies` (closing tool calls a crash left without
results), kept for code outside the tree for one release (issue 21 merged the module into it);
importing it warns."""

from __future__ import annotations

import warnings

from harness.replies import INTERRUPTED_CODE, INTERRUPTED_TEXT, interrupted_result, pending_calls

__all__ = ["INTERRUPTED_CODE", "INTERRUPTED_TEXT", "interrupted_result", "pending_calls"]

warnings.warn(
    "harness.interrupted is deprecated: import harness.replies instead",
    DeprecationWarning,
    stacklevel=2,
)
