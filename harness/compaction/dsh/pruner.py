"""dsh's optional model-free tool-result pruner.

A tool result longer than ``threshold_chars`` code points becomes its first ``head_chars``, a
fixed marker and its last ``tail_chars``; head + marker + tail stays under the threshold, so a
pruned result is never pruned again. Each prune is two appends: a ``compaction/prune`` event
with the shadow price, then a ``tool/result`` that replaces that one node (its content only).
It runs only once pressure or an overflow has qualified, before any summary is asked for.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.messages import Message
from harness.meter.dsh_heuristic import price_message

if TYPE_CHECKING:
    from harness.store.eventlog import EventLog

__all__ = ["MARKER", "ToolResultPruner"]

MARKER = "\n\n[... tool result middle pruned ...]\n\n"
"""DeepSeek-Harness's marker, byte for byte."""


@dataclass(frozen=True)
class ToolResultPruner:
    """Prunes over-long tool results on an event log's surface."""

    threshold_chars: int = 8_192
    head_chars: int = 4_096
    tail_chars: int = 1_024

    def prune(
        self,
        log: EventLog,
        price: Callable[[Message], int] = price_message,
        meter: str = "dsh-4chars",
    ) -> int:
        """Prune every over-long tool result on the surface; returns how many were pruned.
        ``price`` prices the shadowed result and ``meter`` names it in the event (the engine's
        meter; dsh's heuristic by default)."""
        pruned = 0
        for seq, message in log.node_messages():
            if message.role != "tool" or len(message.content) <= self.threshold_chars:
                continue
            text = message.content
            shorter = text[: self.head_chars] + MARKER + text[-self.tail_chars :]
            log.append(
                "compaction/prune",
                {
                    "shadowed_range": {"start": seq, "end": seq},
                    "shadowed_seqs": [seq],
                    "shadowed_token_count": price(message),
                    "meter": meter,
                },
            )
            log.replace_seqs(seq, seq, dataclasses.replace(message, content=shorter))
            pruned += 1
        return pruned
