"""Deprecated alias of :mod:`harness.meter.pricers` (AgentScope's estimator) and
:mod:`harness.meter.windows` (the context-window table), kept for code outside the tree for one
release (issue 21 merged the module into them); importing it warns."""

from __future__ import annotations

import warnings

from harness.meter.pricers import (  # noqa: F401
    CHARS_PER_TOKEN,
    MESSAGE_OVERHEAD,
    TOOL_CALL_OVERHEAD,
    TOOL_RESULT_OVERHEAD,
    estimate_message_tokens,
    estimate_text_tokens,
    estimate_tokens,
)
from harness.meter.windows import (
    AGENTSCOPE_2_0_3_WINDOWS,
    CTXLAB_WINDOWS,
    RESERVED_TOKENS,
    WINDOW_PROFILES,
    lookup_window,
)

__all__ = [
    "AGENTSCOPE_2_0_3_WINDOWS",
    "CTXLAB_WINDOWS",
    "RESERVED_TOKENS",
    "WINDOW_PROFILES",
    "estimate_message_tokens",
    "estimate_text_tokens",
    "estimate_tokens",
    "lookup_window",
]

warnings.warn(
    "harness.tokens is deprecated: import harness.meter.pricers (the estimator) or "
    "harness.meter.windows (the window table) instead",
    DeprecationWarning,
    stacklevel=2,
)
