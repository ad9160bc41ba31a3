"""Deprecated alias of :mod:`harness.compaction.agentscope.prune`, kept for code outside the tree
for one release (issue 21 merged the module into it, its class renamed ``PruneForecast``);
importing it warns."""

from __future__ import annotations

import warnings

from harness.compaction.agentscope.prune import *  # noqa: F403
from harness.compaction.agentscope.prune import PruneForecast
from harness.compaction.agentscope.prune import __all__ as _merged

__all__ = ["PruneGate", *_merged]

PruneGate = PruneForecast
"""The old name of :class:`PruneForecast`."""

warnings.warn(
    "harness.compaction.agentscope.prune_gate is deprecated: "
    "import harness.compaction.agentscope.prune instead (PruneGate is now PruneForecast)",
    DeprecationWarning,
    stacklevel=2,
)
