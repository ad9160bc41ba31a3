"""A CompactBench provider that answers through a ctxlab :class:`~harness.model.ChatModel`.

CompactBench makes a provider with no arguments (``compactbench.runner.run._instantiate_provider``),
so :func:`bound_provider` makes a provider class bound to one model; :func:`registered` puts it in
CompactBench's provider registry under :data:`PROVIDER_KEY` for the length of a run. Every request
is one chat-completions call: CompactBench's system text (when it has one) and its prompt as the
user message, its ``max_tokens``, ``temperature`` and ``response_format`` as body fields.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

from harness import Message
from harness.model import ChatModel, ChatRequest

__all__ = ["PROVIDER_KEY", "bound_provider", "chat_model_of", "registered"]

PROVIDER_KEY = "ctxlab"
"""The key under which the bound provider is registered (``--provider`` in CompactBench's terms)."""


def _request(request: Any) -> ChatRequest:
    """CompactBench's ``CompletionRequest`` as one ctxlab chat request."""
    system = (Message.system(request.system),) if request.system else ()
    extra: dict[str, Any] = {"temperature": request.temperature}
    if request.response_format is not None:
        extra["response_format"] = dict(request.response_format)
    return ChatRequest(
        messages=(*system, Message.user(request.prompt)),
        max_tokens=request.max_tokens,
        purpose="compactbench",
        extra=extra,
    )


def bound_provider(model: ChatModel) -> type[Any]:
    """A CompactBench ``Provider`` class whose instances answer through ``model``."""
    from compactbench.providers import CompletionResponse, Provider

    class ChatModelProvider(Provider):
        key: ClassVar[str] = PROVIDER_KEY
        chat_model: ClassVar[ChatModel] = model

        async def complete(self, request: Any) -> Any:
            # the client is synchronous; CompactBench awaits one call at a time
            response = await asyncio.to_thread(self.chat_model.complete, _request(request))
            usage = response.usage
            return CompletionResponse(
                text=response.message.content or "",
                prompt_tokens=usage.prompt_tokens if usage else 0,
                completion_tokens=usage.completion_tokens if usage else 0,
                model=response.model or request.model,
                raw={"provider": PROVIDER_KEY, "finish_reason": response.finish_reason},
            )

    return ChatModelProvider


def chat_model_of(provider: object) -> ChatModel:
    """The ctxlab model behind a provider :func:`bound_provider` made; a clear error otherwise."""
    model = getattr(type(provider), "chat_model", None)
    if model is None:
        from harness import ConfigError

        raise ConfigError(
            "ctxlab's compactors call the summary model through ctxlab's client: run them "
            f"with the {PROVIDER_KEY!r} provider (ctxlab compactbench), not "
            f"{getattr(provider, 'key', type(provider).__name__)!r}"
        )
    return model


@contextmanager
def registered(model: ChatModel) -> Iterator[str]:
    """Register the provider bound to ``model`` with CompactBench for the block; its key."""
    from compactbench import providers

    registry: dict[str, type[Any]] = providers._REGISTRY
    before = registry.get(PROVIDER_KEY)
    registry[PROVIDER_KEY] = bound_provider(model)
    try:
        yield PROVIDER_KEY
    finally:
        if before is None:
            registry.pop(PROVIDER_KEY, None)
        else:
            registry[PROVIDER_KEY] = before
