"""AgentScope 2.0.3's estimate of a message list that grows at its end, priced as it grows.

X-BENCH prices every request its scripted agent makes and every history a baseline checks, and
each repeats the messages before it: summing the cached per-message prices again was 1.4M calls
of :func:`harness.meter.message_price` in one ``ctxlab run``. :class:`RunningPrice` remembers
the last list and its total, and prices only the messages at positions where the new list does
not hold the same object (the agent builds its system message afresh for every request) and
those appended; a shorter list is priced afresh. Every position is compared, none sampled.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from itertools import compress

from harness import Message
from harness.meter import AGENTSCOPE, message_price

__all__ = ["RunningPrice", "agentscope_price"]


def agentscope_price(messages: Iterable[Message]) -> int:
    """AgentScope 2.0.3's estimate of ``messages``
    (:func:`harness.meter.pricers.estimate_tokens`), each message's price cached on it."""
    return sum(message_price(AGENTSCOPE, m) for m in messages)


class RunningPrice:
    """:func:`agentscope_price` of successive lists, O(changed and appended messages)."""

    def __init__(self) -> None:
        self._messages: tuple[Message, ...] = ()
        self._total = 0

    def of(self, messages: Sequence[Message]) -> int:
        """:func:`agentscope_price` of ``messages``."""
        old = self._messages
        if len(messages) < len(old):
            total = agentscope_price(messages)
        else:
            new_here = compress(messages, map(operator.is_not, messages, old))
            old_here = compress(old, map(operator.is_not, messages, old))
            total = self._total + agentscope_price(new_here) - agentscope_price(old_here)
            total += agentscope_price(messages[len(old) :])
        self._messages, self._total = tuple(messages), total
        return total
