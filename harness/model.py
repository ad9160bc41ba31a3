"""The model boundary: what the agent sends to a chat model and what comes back.

Everything that answers chat requests (the HTTP client, the scripted test models) implements
:class:`ChatModel`, a single ``complete`` method. Requests and responses are plain frozen
records so that they can be logged, compared and replayed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from harness.messages import Message

__all__ = ["ChatModel", "ChatRequest", "ChatResponse", "ToolSchema", "Usage", "provider_of"]

ToolSchema = Mapping[str, Any]
"""A tool in the chat-completions form: ``{"type": "function", "function": {...}}``."""


@dataclass(frozen=True)
class Usage:
    """Token usage of one request, normalised across providers."""

    prompt_tokens: int
    """Input tokens, cached ones included (DeepSeek and OpenAI count them in)."""
    completion_tokens: int
    """Output tokens."""
    cached_tokens: int | None = None
    """Input tokens served from the provider's prefix cache; None when the provider did not say
    (which is not the same as 0)."""

    def to_dict(self) -> dict[str, int | None]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
        }


@dataclass(frozen=True)
class ChatRequest:
    """One chat-completions request, before it is put on the wire."""

    messages: tuple[Message, ...]
    """The whole prompt, system message first when there is one."""
    tools: tuple[ToolSchema, ...] = ()
    """Tool schemas offered to the model."""
    tool_choice: str | Mapping[str, Any] | None = None
    """``auto``, ``none``, ``required`` or a named function; None leaves it to the server."""
    max_tokens: int | None = None
    """Output cap; None leaves it to the server."""
    purpose: str = "agent"
    """Why the harness makes this request (``agent``, ``summary``, ``flush``, ...). Never sent;
    scripted models and progress output use it."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Further top-level body fields for this request only."""


@dataclass(frozen=True)
class ChatResponse:
    """A model's reply to one request."""

    message: Message
    """The assistant message (text, tool calls, reasoning)."""
    finish_reason: str = "stop"
    """``stop``, ``length``, ``tool_calls``, ``content_filter``, ..."""
    usage: Usage | None = None
    """Token usage, when the server reported it."""
    model: str = ""
    """The model name the server reported."""


@runtime_checkable
class ChatModel(Protocol):
    """Anything that answers chat requests."""

    @property
    def model_name(self) -> str:
        """The model this answers as (goes into logs, reports and the context-window lookup)."""
        ...

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer one request or raise a :class:`harness.errors.ModelError`."""
        ...


def provider_of(model: object) -> str:
    """Who serves ``model``: its ``provider`` (a :class:`~harness.client.ChatClient` gives its
    API host, scripted models ``scripted``), looked up through wrappers that keep the wrapped
    model as ``model``; ``unknown`` when nothing says."""
    seen = 0
    while model is not None and seen < 8:
        provider = getattr(model, "provider", None)
        if isinstance(provider, str) and provider:
            return provider
        model, seen = getattr(model, "model", None), seen + 1
    return "unknown"
