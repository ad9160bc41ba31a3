"""Whether step 2 (:func:`~harness.compaction.agentscope.prune.prune_tool_results`) would change
anything, answered in O(what changed) instead of a walk over the whole history.

The prune protects the newest eligible tool results until their estimate reaches
``protect_tokens`` and prunes the older ones longer than ``max_output_chars``, but only when
those are worth ``minimum_tokens``. With running sums of the eligible results' estimates and of
the long ones' (two :class:`~harness.meter.Ledger` over the history), the protected boundary is
a binary search and the candidates' worth a prefix sum: the same decision, exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.compaction.agentscope.config import PruneConfig
from harness.messages import Message
from harness.meter import Ledger, same_message
from harness.tokens import estimate_message_tokens

__all__ = ["PruneGate"]


class PruneGate:
    """Tracks a history (by :meth:`sync`) and says whether the prune would shrink it."""

    def __init__(self, config: PruneConfig) -> None:
        self.config = config
        self._eligible: Ledger[Message] = Ledger(self._eligible_price, same_message)
        self._long: Ledger[Message] = Ledger(self._long_price, same_message)

    def _eligible_price(self, message: Message) -> int:
        if message.role != "tool" or not message.content.strip():
            return 0
        if message.metadata.get("tool_name") in self.config.excluded_tools:
            return 0
        if message.metadata.get("pruned_chars"):
            return 0
        return estimate_message_tokens(message)

    def _long_price(self, message: Message) -> int:
        if len(message.content) <= self.config.max_output_chars:
            return 0
        return self._eligible_price(message)

    def sync(self, messages: Sequence[Message], start: int = 0) -> None:
        """Bring the gate to ``messages[start:]`` (O(new messages) when the history only grew)."""
        self._eligible.sync(messages, start)
        self._long.sync(messages, start)

    def would_prune(self) -> bool:
        """True when the prune would shrink at least one result of the synced history."""
        budget = self._eligible.total - self.config.protect_tokens
        unprotected = self._eligible.count_within(budget)  # results older than the protected
        if unprotected < 0:
            return False
        worth = self._long.prefix(unprotected)
        return worth > 0 and worth >= self.config.minimum_tokens
