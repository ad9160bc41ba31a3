"""The context-window table: model-name prefixes to window sizes.

:func:`lookup_window` picks the longest prefix of the lower-cased model name and returns 0 for
an unknown model, which is the case that sends AgentScope's dynamic token trigger to its 160,000
fallback. Two named tables (:data:`WINDOW_PROFILES`): ctxlab's own, the default, and the
profile of AgentScope 2.0.3's ``ModelContextWindows``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = [
    "AGENTSCOPE_2_0_3_WINDOWS",
    "CTXLAB_WINDOWS",
    "RESERVED_TOKENS",
    "WINDOW_PROFILES",
    "lookup_window",
]

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
