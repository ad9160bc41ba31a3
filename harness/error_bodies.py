"""What an error response means: the :mod:`harness.errors` class for a status and message.

A 413, or a 400 whose message says the context is too long, is a
:class:`~harness.errors.ContextLengthExceededError`, so the agent forces a compaction and retries
once. The message is recognised in DeepSeek's, OpenAI's, Anthropic's, Gemini's and llama.cpp's
wordings (and AWS Bedrock's plain-text "Input is too long for requested model."), whether
the body is a JSON error object, a JSON list of them (Gemini's
OpenAI-compatible endpoint), a JSON string or plain text.
"""

from __future__ import annotations

from typing import Any

from harness import json_depth
from harness.errors import (
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ContextLengthExceededError,
    InsufficientBalanceError,
    RateLimitError,
    ServerError,
    UnprocessableEntityError,
)

__all__ = ["error_body", "error_class"]

_STATUS_ERRORS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    402: InsufficientBalanceError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}
_CONTEXT_LENGTH_PHRASES = (
    "maximum context length",
    "context_length_exceeded",
    "context length",
    "reduce the length",
    "too many tokens",
    "exceeds the model's maximum",
    "exceeds the available context size",  # llama.cpp's llama-server
    "prompt is too long",  # Anthropic: "prompt is too long: 208310 tokens > 200000 maximum"
    "exceed context limit",  # Anthropic: "input length and `max_tokens` exceed context limit"
    "input token count",  # Gemini: "The input token count (1196265) exceeds the maximum ..."
    "exceeds the maximum number of tokens",  # Gemini
    "context window",  # "exceeds the context window", "context_window_exceeded"
    "input is too long",  # AWS Bedrock: "Input is too long for requested model." (plain text)
    "too long for requested model",
)


def error_class(status: int, message: str, code: Any) -> type[APIStatusError]:
    """The error class for an error ``status`` with the provider's ``message`` and ``code``."""
    if status >= 500:
        return ServerError
    if status == 413 or (status == 400 and _is_context_length(message, code)):
        return ContextLengthExceededError
    return _STATUS_ERRORS.get(status, APIStatusError)


def _is_context_length(message: str, code: Any) -> bool:
    lowered = message.lower()
    return code == "context_length_exceeded" or any(p in lowered for p in _CONTEXT_LENGTH_PHRASES)


def error_body(text: str) -> dict[str, Any]:
    """The error object of an error body: a JSON object, the first object of a JSON list (as
    Gemini's OpenAI-compatible endpoint sends), else ``{}`` (a plain string is the message)."""
    try:
        value = json_depth.loads(text)
    except ValueError:
        return {}
    if isinstance(value, list) and value and isinstance(value[0], dict):
        value = value[0]
    return value if isinstance(value, dict) else {}
