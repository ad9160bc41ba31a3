"""Token estimates and the context-window table.

The estimator is the one AgentScope 2.0.3's ``TokenCounterUtil`` uses, so our compaction sees the
same numbers the article's did (within the limits of reproducing a rule, not the code):

* text: ``ceil(len(text) / 2.5)``, the same rate for every script (no CJK rule; the length is
  counted in UTF-16 code units as Java does);
* a message: ``5 + text(ROLE) + text(name) + its blocks``, where ROLE is the upper-case role
  (``USER`` costs 2, ``ASSISTANT`` 4);
* a text block: ``text(content)``;
* a tool call: ``10 + text(name) + text(id) + text(arguments JSON)``;
* a tool result: ``8 + text(tool name) + text(call id) + text(content)``.

It is a heuristic for trends and thresholds; the provider's reported usage is the truth (the
article shows 458 estimated against 1.2K real input tokens).

The context-window table maps model-name prefixes to window sizes; :func:`lookup_window` picks the
longest prefix of the lower-cased model name and returns 0 for an unknown model, which is the
case that sends AgentScope's dynamic token trigger to its 160,000 fallback.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from harness.messages import Message

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

CHARS_PER_TOKEN = 2.5
MESSAGE_OVERHEAD = 5
TOOL_CALL_OVERHEAD = 10
TOOL_RESULT_OVERHEAD = 8

RESERVED_TOKENS = 20_000
"""Tokens kept free below the window when the token trigger is dynamic (AgentScope 2.0.3)."""

CTXLAB_WINDOWS: Mapping[str, int] = MappingProxyType(
    {
        # DeepSeek lists 1M context for deepseek-flash and the V4 models.
        "deepseek-flash": 1_000_000,
        "deepseek-pro": 1_000_000,
        "deepseek-v4-flash": 1_000_000,
        "deepseek-v4-pro": 1_000_000,
        "deepseek-chat": 128_000,
        "deepseek-reasoner": 128_000,
        "gpt-4o": 128_000,
        "gpt-4.1": 1_047_576,
        "o3": 200_000,
        "o4-mini": 200_000,
        "claude-": 200_000,
        "qwen-max": 32_768,
        "qwen-plus": 131_072,
        "qwen-turbo": 1_000_000,
        "qwen2.5-coder-1.5b-instruct": 32_768,
        "qwen2.5-coder-0.5b-instruct": 32_768,
        "gemini-2.5": 1_048_576,
    }
)
"""ctxlab's own table: knows ``deepseek-flash`` (1M)."""

AGENTSCOPE_2_0_3_WINDOWS: Mapping[str, int] = MappingProxyType(
    {
        # 2.0.3 registers only the legacy V4 names for DeepSeek, so the bare ``deepseek-flash``
        # the article used resolves to 0 (unknown).
        "deepseek-v4-flash": 1_000_000,
        "deepseek-v4-pro": 1_000_000,
        "gpt-4o": 128_000,
        "gpt-4.1": 1_047_576,
        "o3": 200_000,
        "o4-mini": 200_000,
        "claude-3": 200_000,
        "claude-4": 200_000,
        "qwen-max": 32_768,
        "qwen-plus": 131_072,
        "qwen-turbo": 1_000_000,
        "gemini-2.5": 1_048_576,
        "moonshot-v1-8k": 8_192,
    }
)
"""The profile of AgentScope 2.0.3's ``ModelContextWindows``, as far as the article needs it."""

WINDOW_PROFILES: Mapping[str, Mapping[str, int]] = MappingProxyType(
    {"ctxlab": CTXLAB_WINDOWS, "agentscope-2.0.3": AGENTSCOPE_2_0_3_WINDOWS}
)
"""Named tables: ``ctxlab`` (ours, the default) and ``agentscope-2.0.3``."""


def lookup_window(model: str, table: Mapping[str, int] = CTXLAB_WINDOWS) -> int:
    """The context window of ``model``: the entry with the longest matching prefix, else 0."""
    name = model.lower()
    matches = [prefix for prefix in table if name.startswith(prefix.lower())]
    if not matches:
        return 0
    return table[max(matches, key=len)]


def estimate_text_tokens(text: str | None) -> int:
    """``ceil(UTF-16 length / 2.5)``; 0 for empty text."""
    if not text:
        return 0
    utf16_units = len(text.encode("utf-16-le", "surrogatepass")) // 2  # lone surrogates: 1 unit
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
