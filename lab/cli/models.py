"""The models the ``ctxlab`` commands talk to: a live endpoint (``bench``, ``compact``) or none
(``compact --undo`` never calls a model)."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from harness.errors import MissingAPIKeyError
from lab.cli.options import timeouts

if TYPE_CHECKING:
    from harness.model import ChatModel

__all__ = ["LOCAL_CONTEXT", "live_model", "no_model"]


def no_model() -> ChatModel:
    from harness import ScriptedModel

    return ScriptedModel([], model_name="none")  # undo never calls a model


LOCAL_CONTEXT = 8_192
"""The context a local server started for ``compact`` is given (``bench`` asks X-BENCH's)."""


@contextlib.contextmanager
def live_model(
    args: argparse.Namespace,
    n_ctx: int = LOCAL_CONTEXT,
    on_response: Callable[[Any], None] | None = None,
) -> Iterator[ChatModel]:
    """The client of ``args.provider``. ``--provider local`` without ``--base-url`` starts a
    local server for ``args.model`` (``qwen1.5b``, the default, or ``qwen0.5b``) with a context
    of ``n_ctx`` tokens, and the client names the model that server serves. ``on_response``
    sees every HTTP response (an httpx hook: ``ctxlab bench``'s limiter counts refusals)."""
    with _http(on_response) as http, _client(args, n_ctx, http) as client:
        yield client


@contextlib.contextmanager
def _http(on_response: Callable[[Any], None] | None) -> Iterator[Any]:
    """An httpx client with ``on_response`` as its response hook; None without one."""
    if on_response is None:
        yield None
        return
    import httpx

    with httpx.Client(event_hooks={"response": [on_response]}) as http:
        yield http


@contextlib.contextmanager
def _client(args: argparse.Namespace, n_ctx: int, http: Any) -> Iterator[ChatModel]:
    from harness import ChatClient
    from lab.recorder import local_server, provider_spec
    from lab.recorder.local.modelfile import local_model

    if args.provider == "local" and not args.base_url:
        with local_server(local_model(args.model), n_ctx=n_ctx) as server:
            spec = provider_spec("local", model=server.model, base_url=server.base_url)
            with ChatClient(
                spec.model,
                base_url=spec.base_url,
                api_key="no-key",
                params=spec.params,
                timeout=timeouts(args),
                http_client=http,
            ) as client:
                yield client
        return
    spec = provider_spec(
        args.provider, model=args.model, base_url=args.base_url, api_key_env=args.api_key_env
    )
    key = os.environ.get(spec.api_key_env, "") if spec.api_key_env else "no-key"
    if not key:
        raise MissingAPIKeyError(spec.api_key_env or "")
    with ChatClient(
        spec.model,
        base_url=spec.base_url,
        api_key=key,
        params=spec.params,
        timeout=timeouts(args),
        http_client=http,
    ) as client:
        yield client
