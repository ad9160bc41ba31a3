"""Pricers: what one message, and a request's header, cost in estimated tokens.

A pricer is a pure function of a message; :func:`message_price` caches its answer on the message
object (messages are frozen), so a long history is priced once, not before every request.

* :data:`AGENTSCOPE` — AgentScope 2.0.3's ``TokenCounterUtil`` (:func:`estimate_message_tokens`,
  below): 2.5 characters per token, tool schemas not counted. The article's numbers come from
  it.
* :data:`DSH` — DeepSeek-Harness's heuristic (:mod:`harness.meter.dsh_heuristic`): 4 characters
  per token plus small overheads, tool schemas counted.
* :data:`CTXLAB` — ctxlab's own heuristic: one token per CJK character (and full-width
  punctuation), one per 3.5 other characters, tool schemas counted. Calibrated on our cassettes;
  it is what the anchored meter adds to the provider's last count.

AgentScope's estimator is the one its ``TokenCounterUtil`` uses, so our compaction sees the same
numbers the article's did (within the limits of reproducing a rule, not the code):

* text: ``ceil(len(text) / 2.5)``, the same rate for every script (no CJK rule; the length is
  counted in UTF-16 code units as Java does);
* a message: ``5 + text(ROLE) + text(name) + its blocks``, where ROLE is the upper-case role
  (``USER`` costs 2, ``ASSISTANT`` 4);
* a text block: ``text(content)``;
* a tool call: ``10 + text(name) + text(id) + text(arguments JSON)``;
* a tool result: ``8 + text(tool name) + text(call id) + text(content)``.

It is a heuristic for trends and thresholds; the provider's reported usage is the truth (the
article shows 458 estimated against 1.2K real input tokens).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from harness.messages import Message
from harness.meter import dsh_heuristic
from harness.model import ToolSchema

__all__ = [
    "AGENTSCOPE",
    "CHARS_PER_TOKEN",
    "CTXLAB",
    "DSH",
    "AgentScopePricer",
    "CtxlabPricer",
    "DshPricer",
    "Pricer",
    "estimate_message_tokens",
    "estimate_text_tokens",
    "estimate_tokens",
    "message_price",
    "tools_json",
]

_CACHE = "_ctxlab_prices"

CHARS_PER_TOKEN = 2.5
MESSAGE_OVERHEAD = 5
TOOL_CALL_OVERHEAD = 10
TOOL_RESULT_OVERHEAD = 8


def estimate_text_tokens(text: str | None) -> int:
    """``ceil(UTF-16 length / 2.5)``; 0 for empty text."""
    if not text:
        return 0
    if text.isascii():  # one UTF-16 unit a character, no encoding needed (10x cheaper)
        utf16_units = len(text)
    else:
        utf16_units = len(text.encode("utf-16-le", "surrogatepass")) // 2  # lone surrogate: 1
    return math.ceil(utf16_units / CHARS_PER_TOKEN)


def estimate_message_tokens(message: Message) -> int:
    """The estimate of one message, overheads included (see the module docstring)."""
    total = MESSAGE_OVERHEAD + estimate_text_tokens(message.role.upper())
    total += estimate_text_tokens(message.name)
    if message.role == "tool":
        tool_name = message.metadata.get("tool_name")
        total += TOOL_RESULT_OVERHEAD + estimate_text_tokens(tool_name)
        total += estimate_text_tokens(message.tool_call_id)
    total += estimate_text_tokens(message.content)
    for call in message.tool_calls:
        total += TOOL_CALL_OVERHEAD + estimate_text_tokens(call.name)
        total += estimate_text_tokens(call.id) + estimate_text_tokens(call.arguments)
    return total


def estimate_tokens(messages: Iterable[Message]) -> int:
    """The estimate of a message list: the sum of its messages."""
    return sum(estimate_message_tokens(message) for message in messages)


class Pricer(Protocol):
    """Prices messages and request headers; ``name`` goes into every record it priced."""

    @property
    def name(self) -> str: ...

    def message(self, message: Message) -> int:
        """One history message."""
        ...

    def header(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> int:
        """The part of a request before the history: system prompt, reference material, tools."""
        ...


def message_price(pricer: Pricer, message: Message) -> int:
    """``pricer.message(message)``, cached on the message (one entry per pricer name).

    A history is summed again before every request (2.5M calls in a ``ctxlab run``), so the
    cached answer is read first, with no other work."""
    try:
        cached: int = message.__dict__[_CACHE][pricer.name]
        return cached
    except KeyError:
        pass
    cache: dict[str, int] | None = message.__dict__.get(_CACHE)
    if cache is None:
        cache = {}
        object.__setattr__(message, _CACHE, cache)  # frozen dataclass: not a field, never sent
    price = cache[pricer.name] = pricer.message(message)
    return price


def tools_json(tools: Sequence[ToolSchema]) -> str:
    """The tools as ``JSON.stringify`` writes them (compact, non-ASCII kept)."""
    return json.dumps(list(tools), separators=(",", ":"), ensure_ascii=False)


class AgentScopePricer:
    """AgentScope 2.0.3's estimator; tool schemas cost nothing (it never counts them)."""

    name = "agentscope-2.0.3"

    def message(self, message: Message) -> int:
        return estimate_message_tokens(message)

    def header(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> int:
        return sum(estimate_message_tokens(m) for m in messages)


class DshPricer:
    """DeepSeek-Harness's token meter heuristic (4 characters per token)."""

    name = "dsh-4chars"

    def message(self, message: Message) -> int:
        return dsh_heuristic.price_message(message)

    def header(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> int:
        return dsh_heuristic.price_header(messages, tools)


_WIDE = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
CTXLAB_MESSAGE_OVERHEAD = 4
CTXLAB_CALL_OVERHEAD = 6
CTXLAB_CHARS_PER_TOKEN = 3.5


class CtxlabPricer:
    """ctxlab's heuristic: a CJK character is a token, other text 3.5 characters a token."""

    name = "ctxlab-heuristic"

    def text(self, text: str | None) -> int:
        if not text:
            return 0
        wide = len(_WIDE.findall(text))
        return wide + math.ceil((len(text) - wide) / CTXLAB_CHARS_PER_TOKEN)

    def message(self, message: Message) -> int:
        total = CTXLAB_MESSAGE_OVERHEAD + self.text(message.content)
        total += self.text(message.reasoning_content) + self.text(message.name)
        for call in message.tool_calls:
            total += CTXLAB_CALL_OVERHEAD + self.text(call.name) + self.text(call.arguments)
            total += self.text(call.id)
        return total + self.text(message.tool_call_id)

    def header(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> int:
        total = sum(self.message(m) for m in messages)
        return total + (self.text(tools_json(tools)) if tools else 0)


AGENTSCOPE = AgentScopePricer()
DSH = DshPricer()
CTXLAB = CtxlabPricer()
