"""ctxlab's summary budget: a compaction always leaves room below the trigger.

Neither seed bounds the summary. AgentScope 2.0.3 takes whatever the model writes (a 0.5B
model's summary of an 802-token span came back at 828 tokens), so with a small window the
context is back at the trigger within a request or two of every compaction, and ctxlab's
thrash guard (:mod:`harness.compaction.guards.thrash`) then stops the session: X-BENCH measured
it on two of three recorded 2K conversations. The budget ties the summary to the room the
trigger leaves:

* the summary message (the model's text and the gate's section together) may cost at most
  ``share × (trigger_tokens − keep_tokens)`` tokens (:func:`summary_budget`; ``keep_tokens`` is
  0 in count mode), priced by the engine's meter;
* the gate (:mod:`harness.compaction.guards.gate`), when on, is reserved
  :data:`GATE_RESERVE` of the budget (or its own smaller budget) first: its exact values are
  what a summary most often drops, so the model's text is cut, at the last whole line that
  fits, to leave it that much (:func:`fit_lines`); what the text leaves unused the gate may use
  too;
* the summary call asks for at most the whole budget (``max_tokens``, at most
  :data:`MAX_SUMMARY_CALL_TOKENS`) and the prompt names the length the text may take
  (:func:`text_budget`).

Off (None) in ``CompactionConfig()``, the seeds' behaviour; on in
:func:`harness.compaction.agentscope.ctxlab_profile`.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = [
    "GATE_RESERVE",
    "MAX_SUMMARY_CALL_TOKENS",
    "budget_prompt",
    "check_share",
    "fit_lines",
    "gate_reserve",
    "summary_budget",
    "text_budget",
]

MAX_SUMMARY_CALL_TOKENS = 8_192
"""The largest ``max_tokens`` a budgeted summary call asks for (what DeepSeek-Harness's own
summary call asks; providers refuse a larger output limit)."""

_WORDS_PER_TOKEN = 0.75

GATE_RESERVE = 2 / 3
"""The share of the summary budget kept for the gate's exact values before the model's text.
X-BENCH measured why it is the larger part: the model's text kept 15–25 % of the planted facts
under a structured prompt, the gate's list 91–100 %; with half the budget reserved the gate's
list was cut on English conversations, and a text that filled its half cost tokens the list
needed."""


def gate_reserve(budget: int, gate_budget_tokens: int | None) -> int:
    """What of ``budget`` the model's text must leave to a gate of ``gate_budget_tokens`` (None:
    no gate)."""
    if gate_budget_tokens is None:
        return 0
    return min(gate_budget_tokens, int(budget * GATE_RESERVE))


def text_budget(budget: int, gate_budget_tokens: int | None) -> int:
    """The most the model's text may cost: the budget less the gate's reserve (at least 1)."""
    return max(budget - gate_reserve(budget, gate_budget_tokens), 1)


def check_share(share: object) -> str | None:
    """Why ``share`` is not a valid ``summary_budget``, or None."""
    if share is None:
        return None
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= 1:
        return f"summary_budget must be None or a share in (0, 1], not {share!r}"
    return None


def summary_budget(share: float | None, trigger_tokens: int | None, keep_tokens: int) -> int | None:
    """The most a summary message may cost, or None: no budget (``share`` None), no token
    trigger to leave room under, or no room (a tail that meets the trigger by itself: every
    compaction then thrashes whatever the summary costs, which the thrash guard handles)."""
    if share is None or not trigger_tokens or trigger_tokens <= keep_tokens:
        return None
    return max(int(share * (trigger_tokens - keep_tokens)), 1)


def budget_prompt(prompt: str, budget: int) -> str:
    """``prompt`` with the length the budget allows named at its end."""
    words = max(int(budget * _WORDS_PER_TOKEN), 1)
    return f"{prompt}\n\nKeep the summary under {words} words."


def fit_lines(text: str, limit: int, price: Callable[[str], int]) -> str:
    """The longest run of ``text``'s first whole lines whose price is at most ``limit``; when
    not even the first line fits, as much of it as fits (by characters). ``text`` itself when
    it fits."""
    if price(text) <= limit:
        return text
    lines = text.split("\n")
    low, high = 0, len(lines)  # the first ``low`` lines fit; ``high`` lines do not
    while high - low > 1:
        middle = (low + high) // 2
        if price("\n".join(lines[:middle])) <= limit:
            low = middle
        else:
            high = middle
    if low:
        return "\n".join(lines[:low]).rstrip()
    first = lines[0]
    low, high = 0, len(first)
    while high - low > 1:
        middle = (low + high) // 2
        if price(first[:middle]) <= limit:
            low = middle
        else:
            high = middle
    return first[:low].rstrip()
