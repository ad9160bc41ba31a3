"""An OpenAI-compatible chat-completions client (DeepSeek by default) over httpx.

:class:`ChatClient` implements :class:`harness.model.ChatModel`: it sends one non-streaming
``POST {base_url}/chat/completions`` per request, retries transient failures (408, 409, 429,
5xx, connection errors and timeouts) with capped exponential backoff, and translates every
httpx exception and error status into the :mod:`harness.errors` hierarchy exactly once, here.
The API key is sent only in the ``Authorization`` header; it never appears in ``repr``, in
exception messages or in log records.
"""

from __future__ import annotations

import json
import logging
import os
import random as _random
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from harness.errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ContextLengthExceededError,
    InsufficientBalanceError,
    MissingAPIKeyError,
    RateLimitError,
    ResponseFormatError,
    ServerError,
    UnprocessableEntityError,
)
from harness.messages import Message
from harness.model import ChatRequest, ChatResponse, Usage

__all__ = ["DEFAULT_BASE_URL", "DEFAULT_MODEL", "ChatClient", "RetryPolicy", "parse_usage"]

DEFAULT_BASE_URL = "https://api.deepseek.com"
"""Where requests go when neither the argument nor ``DEEPSEEK_BASE_URL`` names a server."""
DEFAULT_MODEL = "deepseek-flash"
"""The model asked for when none is given."""

logger = logging.getLogger("harness.client")

_RETRY_STATUSES = frozenset({408, 409, 429})
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
)
_ERRNO_PREFIX = re.compile(r"^\[Errno -?\d+\]\s*")


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry transient failures.

    The delay before retry ``n`` (counting from 0) is ``min(max_delay, initial_delay * 2**n)``
    shortened by up to 25 % of jitter, unless the server's ``retry-after-ms`` / ``Retry-After``
    header asks for a wait between 0 and ``retry_after_cap`` seconds, which is then used as is.
    """

    max_retries: int = 2
    initial_delay: float = 0.5
    max_delay: float = 8.0
    retry_after_cap: float = 60.0

    def backoff(self, attempt: int, jitter: float) -> float:
        """The backoff delay before retry ``attempt``; ``jitter`` is a number in [0, 1)."""
        return min(self.max_delay, self.initial_delay * 2**attempt) * (1 - 0.25 * jitter)


def parse_usage(data: Mapping[str, Any]) -> Usage | None:
    """Normalise the usage of a chat-completions body; None when it has no ``usage``.

    The cached count is read from ``usage.prompt_tokens_details.cached_tokens`` (OpenAI),
    else ``usage.prompt_cache_hit_tokens`` (DeepSeek), else ``timings.cache_n`` (llama.cpp),
    else left unknown (None, not 0).
    """
    usage = data.get("usage")
    if not isinstance(usage, Mapping):
        return None
    details = usage.get("prompt_tokens_details")
    timings = data.get("timings")
    candidates = (
        details.get("cached_tokens") if isinstance(details, Mapping) else None,
        usage.get("prompt_cache_hit_tokens"),
        timings.get("cache_n") if isinstance(timings, Mapping) else None,
    )
    cached = next((int(value) for value in candidates if value is not None), None)
    return Usage(
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        cached_tokens=cached,
    )


class ChatClient:
    """A chat model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    ``params`` are extra top-level body fields sent with every request (``temperature``,
    ``seed``, ``thinking``, ...); a request's own ``extra`` fields are merged on top of them.
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        api_key_env: str = "DEEPSEEK_API_KEY",
        params: Mapping[str, Any] | None = None,
        retry: RetryPolicy | None = None,
        timeout: float = 600.0,
        http_client: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
        random: Callable[[], float] = _random.random,
    ) -> None:
        key = (api_key or os.environ.get(api_key_env, "")).strip()
        if not key:
            raise MissingAPIKeyError(api_key_env)
        self._api_key = key
        self._headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        self._model = model
        base = base_url or os.environ.get("DEEPSEEK_BASE_URL") or DEFAULT_BASE_URL
        self._base_url = base.rstrip("/")
        self._url = f"{self._base_url}/chat/completions"
        self._host = httpx.URL(self._url).netloc.decode("ascii") or self._base_url
        self._params = dict(params or {})
        self._retry = retry or RetryPolicy()
        self._owns_http = http_client is None
        self._http = http_client if http_client is not None else httpx.Client(timeout=timeout)
        self._sleep = sleep
        self._random = random

    @property
    def model_name(self) -> str:
        """The model sent in every request body."""
        return self._model

    @property
    def provider(self) -> str:
        """The API host the requests go to (``api.deepseek.com``, ``127.0.0.1:8080``)."""
        return self._host

    @property
    def base_url(self) -> str:
        """The server's base URL, without a trailing slash."""
        return self._base_url

    def __repr__(self) -> str:
        return f"ChatClient(model={self._model!r}, base_url={self._base_url!r})"

    def build_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body for ``request``, keys in a stable order (cassettes compare bodies)."""
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [message.to_wire() for message in request.messages],
        }
        if request.tools:
            body["tools"] = [dict(tool) for tool in request.tools]
        if request.tool_choice is not None:
            body["tool_choice"] = request.tool_choice
        if request.max_tokens is not None:
            body["max_tokens"] = request.max_tokens
        body.update(self._params)
        body.update(request.extra)
        return body

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Send ``request`` and return the reply, or raise a :class:`ModelError`."""
        payload = json.dumps(self.build_body(request), ensure_ascii=False, separators=(",", ":"))
        response = self._send(payload.encode("utf-8"))
        return self._parse(response)

    def close(self) -> None:
        """Close the HTTP client if this client created it."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _send(self, payload: bytes) -> httpx.Response:
        """POST ``payload``, retrying transient failures; return the first 2xx response."""
        for attempt in range(self._retry.max_retries + 1):
            last = attempt >= self._retry.max_retries
            try:
                response = self._http.post(self._url, content=payload, headers=self._headers)
            except httpx.TransportError as exc:
                if last:
                    raise self._transport_error(exc) from exc
                self._pause(attempt, None, f"could not reach {self._host} ({type(exc).__name__})")
                continue
            if response.is_success:
                return response
            if last or not _retryable(response.status_code):
                raise self._status_error(response)
            self._pause(attempt, response, f"{self._host} returned {response.status_code}")
        raise AssertionError("unreachable")  # pragma: no cover

    def _pause(self, attempt: int, response: httpx.Response | None, why: str) -> None:
        """Log and sleep before retry ``attempt``."""
        delay = _retry_after(response, self._retry.retry_after_cap)
        if delay is None:
            delay = self._retry.backoff(attempt, self._random())
        logger.warning(
            "%s; retry %d of %d in %.2fs", why, attempt + 1, self._retry.max_retries, delay
        )
        self._sleep(delay)

    def _transport_error(self, exc: httpx.TransportError) -> APIConnectionError:
        reason = _ERRNO_PREFIX.sub("", self._redact(str(exc))) or type(exc).__name__
        if isinstance(exc, httpx.TimeoutException):
            return APITimeoutError(f"timed out waiting for {self._url}: {reason}")
        return APIConnectionError(f"could not reach {self._url}: {reason[:1].lower()}{reason[1:]}")

    def _status_error(self, response: httpx.Response) -> APIStatusError:
        """The :class:`APIStatusError` subclass for an error response."""
        text = self._redact(response.text).strip()
        body = _json_object(text) or {}
        error = body.get("error")
        error = error if isinstance(error, Mapping) else {"message": error}
        message = str(error.get("message") or text[:200] or response.reason_phrase)
        headers = response.headers
        request_id = headers.get("x-request-id") or headers.get("x-deepseek-request-id")
        notes = [str(error.get("type") or error.get("code") or "")]
        notes += [f"request id {request_id}"] if request_id else []
        detail = "; ".join(note for note in notes if note)
        status = response.status_code
        sentence = f"{self._host} returned {status}: {message.rstrip('. ')}"
        sentence += f" ({detail})." if detail else "."
        cls = _error_class(status, message, error.get("code"))
        return cls(sentence, status_code=status, body=body, request_id=request_id)

    def _parse(self, response: httpx.Response) -> ChatResponse:
        """Read a 2xx chat-completions body into a :class:`ChatResponse`."""
        text = self._redact(response.text).strip()
        data = _json_object(text)
        if data is None:
            raise self._format_error(response, f"a body that is not a JSON object: {text[:200]!r}")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            raise self._format_error(response, "a body without choices")
        wire = choices[0].get("message")
        if not isinstance(wire, Mapping):
            raise self._format_error(response, "a body without choices[0].message")
        try:
            message = Message.from_wire({**wire, "role": wire.get("role") or "assistant"})
        except (ValueError, TypeError) as exc:
            raise self._format_error(response, f"an unreadable message: {exc}") from exc
        return ChatResponse(
            message=message,
            finish_reason=str(choices[0].get("finish_reason") or "stop"),
            usage=parse_usage(data),
            model=str(data.get("model") or self._model),
        )

    def _format_error(self, response: httpx.Response, what: str) -> ResponseFormatError:
        return ResponseFormatError(f"{self._host} answered {response.status_code} with {what}")

    def _redact(self, text: str) -> str:
        """``text`` with the API key blanked out, in case a server echoes it."""
        return text.replace(self._api_key, "[redacted]")


def _retryable(status: int) -> bool:
    return status in _RETRY_STATUSES or status >= 500


def _error_class(status: int, message: str, code: Any) -> type[APIStatusError]:
    if status >= 500:
        return ServerError
    if status == 400 and _is_context_length(message, code):
        return ContextLengthExceededError
    return _STATUS_ERRORS.get(status, APIStatusError)


def _is_context_length(message: str, code: Any) -> bool:
    lowered = message.lower()
    return code == "context_length_exceeded" or any(p in lowered for p in _CONTEXT_LENGTH_PHRASES)


def _json_object(text: str) -> dict[str, Any] | None:
    """``text`` parsed as a JSON object, or None when it is not one."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _retry_after(response: httpx.Response | None, cap: float) -> float | None:
    """The wait the server asked for, in seconds, when it is between 0 and ``cap``."""
    if response is None:
        return None
    if millis := response.headers.get("retry-after-ms"):
        delay = _seconds(millis, scale=1000.0)
    else:
        delay = _seconds(response.headers.get("retry-after"))
    return delay if delay is not None and 0 <= delay <= cap else None


def _seconds(value: str | None, scale: float = 1.0) -> float | None:
    """A header value as seconds: a number (divided by ``scale``) or the time until an HTTP date."""
    if not value:
        return None
    try:
        return float(value) / scale
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError, IndexError):
        return None
