"""Steps 1 and 2 of a compaction: shrink old tool traffic without a model call.

:class:`PruneForecast` says whether step 2 (:func:`prune_tool_results`) would change anything,
answered in O(what changed) instead of a walk over the whole history. The prune protects the
newest eligible tool results until their estimate reaches ``protect_tokens`` and prunes the
older ones longer than ``max_output_chars``, but only when those are worth ``minimum_tokens``.
With running sums of the eligible results' estimates and of the long ones' (two
:class:`~harness.meter.Ledger` over the history), the protected boundary is a binary search and
the candidates' worth a prefix sum: the same decision, exactly.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Sequence

from harness.compaction.agentscope.config import PruneConfig, TruncateArgsConfig
from harness.messages import Message, ToolCall
from harness.meter import Ledger, same_message
from harness.meter.pricers import AGENTSCOPE, message_price

__all__ = ["PruneForecast", "prune_tool_results", "truncate_tool_arguments"]

logger = logging.getLogger("harness.compaction")


def _tokens(message: Message) -> int:
    """AgentScope's estimate of ``message`` (``estimate_message_tokens``), cached on the
    message as the meter caches it: the prune walks the whole history at every check."""
    return message_price(AGENTSCOPE, message)


def _blank(text: str) -> bool:
    """``not text.strip()`` without copying ``text``: ``isspace`` stops at the first
    character that is not whitespace (``strip`` strips exactly those)."""
    return not text or text.isspace()


def prune_tool_results(messages: Sequence[Message], config: PruneConfig) -> list[Message]:
    """Shrink old tool results to a head and a tail, keeping the newest ones whole.

    Walking from the newest result back, results are protected until ``protect_tokens`` is
    reached (the result that crosses the budget is still protected). Older results longer than
    ``max_output_chars`` are pruned, but only when together they are worth at least
    ``minimum_tokens``. The message count never changes.
    """
    protected = 0
    candidates: list[int] = []
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role != "tool" or _blank(message.content):
            continue
        if message.metadata.get("tool_name") in config.excluded_tools:
            continue
        if message.metadata.get("pruned_chars"):
            continue  # already a head and a tail; pruning it again would misreport the cut
        if protected < config.protect_tokens:
            protected += _tokens(message)
        elif len(message.content) > config.max_output_chars:
            candidates.append(index)
    if sum(_tokens(messages[i]) for i in candidates) < config.minimum_tokens:
        return list(messages)
    pruned = list(messages)
    for index in candidates:
        pruned[index] = _shrink(messages[index], config.max_output_chars // 2)
    logger.info("Pruned %d tool results", len(candidates))
    return pruned


def _shrink(message: Message, half: int) -> Message:
    text = message.content
    dropped = len(text) - 2 * half
    content = f"{text[:half]}\n\n...({dropped} chars pruned)...\n\n{text[-half:]}"
    metadata = {**message.metadata, "pruned_chars": dropped}
    return dataclasses.replace(message, content=content, metadata=metadata)


def truncate_tool_arguments(
    messages: Sequence[Message], config: TruncateArgsConfig
) -> list[Message]:
    """Shorten long string arguments of tool calls older than the last ``keep_messages``.

    Runs only when the history has reached the step's own trigger (messages or tokens). A long
    argument keeps its first 20 characters followed by ``truncation_text``.
    """
    over = (
        len(messages) >= config.trigger_messages
        or sum(map(_tokens, messages)) >= config.trigger_tokens
    )
    if not over:
        return list(messages)
    boundary = max(len(messages) - config.keep_messages, 0)
    result = list(messages)
    for index in range(boundary):
        message = messages[index]
        if message.tool_calls:
            calls = tuple(_truncate_call(call, config) for call in message.tool_calls)
            result[index] = dataclasses.replace(
                message, tool_calls=calls, metadata=dict(message.metadata)
            )
    return result


def _truncate_call(call: ToolCall, config: TruncateArgsConfig) -> ToolCall:
    try:
        arguments = call.parsed_arguments()
    except ValueError:
        return call
    changed = {
        key: value[:20] + config.truncation_text
        if isinstance(value, str) and len(value) > config.max_arg_length
        else value
        for key, value in arguments.items()
    }
    if changed == arguments:
        return call
    return dataclasses.replace(call, arguments=json.dumps(changed, ensure_ascii=False))


class PruneForecast:
    """Tracks a history (by :meth:`sync`) and says whether the prune would shrink it."""

    def __init__(self, config: PruneConfig) -> None:
        self.config = config
        self._eligible: Ledger[Message] = Ledger(self._eligible_price, same_message)
        self._long: Ledger[Message] = Ledger(self._long_price, same_message)

    def _eligible_price(self, message: Message) -> int:
        if message.role != "tool" or _blank(message.content):
            return 0
        if message.metadata.get("tool_name") in self.config.excluded_tools:
            return 0
        if message.metadata.get("pruned_chars"):
            return 0
        return _tokens(message)

    def _long_price(self, message: Message) -> int:
        if len(message.content) <= self.config.max_output_chars:
            return 0
        return self._eligible_price(message)

    def sync(
        self, messages: Sequence[Message], start: int = 0, source: Sequence[Message] | None = None
    ) -> None:
        """Bring the forecast to ``messages[start:]`` (O(new messages) when the history only
        grew and ``source`` names the live list it was read from: :class:`Ledger`)."""
        self._eligible.sync(messages, start, source)
        self._long.sync(messages, start, source)

    def would_prune(self) -> bool:
        """True when the prune would shrink at least one result of the synced history."""
        budget = self._eligible.total - self.config.protect_tokens
        unprotected = self._eligible.count_within(budget)  # results older than the protected
        if unprotected < 0:
            return False
        worth = self._long.prefix(unprotected)
        return worth > 0 and worth >= self.config.minimum_tokens
