"""Where to cut a history so that no tool call is separated from its results."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.compaction.record import Cutoff
from harness.messages import Message
from harness.meter.ledger import Ledger
from harness.meter.pricers import estimate_message_tokens

__all__ = ["Cutoff", "find_safe_cutoff"]


def find_safe_cutoff(
    messages: Sequence[Message],
    keep_messages: int,
    keep_tokens: int = 0,
    price: Callable[[Message], int] = estimate_message_tokens,
    priced: Ledger[Message] | None = None,
) -> Cutoff:
    """Choose the cutoff for keeping ``keep_messages`` (count mode, ``keep_tokens == 0``) or
    ``keep_tokens`` tokens from the tail (priced by ``price``, AgentScope's estimator by
    default), then move it so no call loses its results. ``priced``, a ledger of exactly
    ``messages`` priced by ``price`` (the engine's), finds the token mode's tail by its running
    sums in O(log n), not a walk back over the tail.

    If the naive cutoff lands on a tool result, the cutoff moves back to the assistant message
    that made the call, so the whole call with all its (parallel) results stays in the tail:
    one more message kept rather than a pair split. A tool result whose call cannot be found
    (a broken history) is summarised with the prefix instead.
    """
    naive, why = _naive_cutoff(messages, keep_messages, keep_tokens, price, priced)
    if naive <= 0 or naive >= len(messages) or messages[naive].role != "tool":
        return Cutoff(max(naive, 0), max(naive, 0), why)
    run_end = naive
    while run_end < len(messages) and messages[run_end].role == "tool":
        run_end += 1
    result_ids = {m.tool_call_id for m in messages[naive:run_end]}
    for index in range(naive - 1, -1, -1):
        if {call.id for call in messages[index].tool_calls} & result_ids:
            return Cutoff(
                index,
                naive,
                f"{why}; index {naive} is a tool result whose call is "
                f"in the assistant message at index {index}, so the cutoff moved back "
                f"to {index} to keep the call and its results together",
            )
    return Cutoff(
        run_end,
        naive,
        f"{why}; index {naive} is a tool result with no call in the "
        f"history, so the orphaned results up to {run_end} go into the summary",
    )


def _naive_cutoff(
    messages: Sequence[Message],
    keep_messages: int,
    keep_tokens: int,
    price: Callable[[Message], int],
    priced: Ledger[Message] | None = None,
) -> tuple[int, str]:
    total = len(messages)
    if keep_tokens <= 0:
        cutoff = max(total - keep_messages, 0)
        return cutoff, f"count mode: {total} messages − keep {keep_messages} = {cutoff}"
    if priced is not None:
        cutoff = priced.tail_within(keep_tokens)
    else:
        kept_tokens = 0
        cutoff = total
        while cutoff > 0:
            cost = price(messages[cutoff - 1])
            if kept_tokens + cost > keep_tokens:
                break
            kept_tokens += cost
            cutoff -= 1
    cutoff = min(cutoff, total - 1) if total else 0
    return (
        cutoff,
        f"token mode: the last {total - cutoff} messages fit in keep {keep_tokens} tokens",
    )
