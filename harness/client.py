"""An OpenAI-compatible chat-completions client (DeepSeek by default) over httpx.

:class:`ChatClient` implements :class:`harness.model.ChatModel`: it sends one non-streaming
``POST {base_url}/chat/completions`` per request, retries transient failures (408, 409, 429,
5xx, connection errors and timeouts) with capped exponential backoff, all within the total
timeout (:mod:`harness.timeouts`), and translates every httpx exception and error status into
the :mod:`harness.errors` hierarchy exactly once, here. A 413, or a 400 whose message says the
context is too long (DeepSeek's, OpenAI's, Anthropic's, Gemini's or llama.cpp's wording, in a
JSON error object, a JSON list or a plain-text body), is a ``ContextLengthExceededError``. A 2xx
reply is read strictly (:mod:`harness.replies`) so a bad one is refused before anything of it
is appended to a history.
The API key is sent only in the ``Authorization`` header; it never appears in ``repr``, in
exception messages or in log records, and an error body passes the secret scanner
(:mod:`harness.secrets`) before any of it reaches an exception, so another key a provider
echoes (a proxy's, a key from the request) is redacted too.
"""

from __future__ import annotations

import logging
import os
import random as _random
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from harness import json_depth, request_body
from harness.error_bodies import error_body, error_class
from harness.errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    MissingAPIKeyError,
    ResponseFormatError,
)
from harness.model import ChatRequest, ChatResponse
from harness.replies import parse_usage, read_completion
from harness.secrets import redact_text
from harness.timeouts import Timeouts
from harness.validation import seconds, whole_number

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL",
    "ChatClient",
    "RetryPolicy",
    "Timeouts",
    "parse_usage",
]

DEFAULT_BASE_URL = "https://api.deepseek.com"
"""Where requests go when neither the argument nor ``DEEPSEEK_BASE_URL`` names a server."""
DEFAULT_MODEL = "deepseek-flash"
"""The model asked for when none is given."""

logger = logging.getLogger("harness.client")

_RETRY_STATUSES = frozenset({408, 409, 429})
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

    def __post_init__(self) -> None:
        whole_number("max_retries", self.max_retries)
        for name in ("initial_delay", "max_delay", "retry_after_cap"):
            seconds(name, getattr(self, name), allow_zero=True)

    def backoff(self, attempt: int, jitter: float) -> float:
        """The backoff delay before retry ``attempt``; ``jitter`` is a number in [0, 1)."""
        return min(self.max_delay, self.initial_delay * 2**attempt) * (1 - 0.25 * jitter)


class ChatClient:
    """A chat model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    ``params`` are extra top-level body fields sent with every request (``temperature``,
    ``seed``, ``thinking``, ...); a request's own ``extra`` fields are merged on top of them.
    ``timeout`` is a :class:`~harness.timeouts.Timeouts`, a number of seconds for all three, or
    None for the defaults and the ``CTXLAB_*TIMEOUT`` environment variables; it applies to every
    request, also through a given ``http_client``.
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
        timeout: Timeouts | float | None = None,
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
        parts = urlsplit(self._url)
        self._shown_url = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
        """The endpoint as messages name it: no user or password (a key may be the password)."""
        self._url_password = parts.password or ""
        self._params = dict(params or {})
        self._retry = retry or RetryPolicy()
        self._owns_http = http_client is None
        self._timeouts = _timeouts(timeout)
        self._http = http_client if http_client is not None else httpx.Client()
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
    def timeouts(self) -> Timeouts:
        """The connect, read and total timeouts every request uses."""
        return self._timeouts

    @property
    def base_url(self) -> str:
        """The server's base URL, without a trailing slash."""
        return self._base_url

    def __repr__(self) -> str:
        return f"ChatClient(model={self._model!r}, base_url={self._base_url!r})"

    def build_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body for ``request``, keys in a stable order (cassettes compare bodies):
        :func:`harness.request_body.build`."""
        return request_body.build(self._model, request, self._params)

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Send ``request`` and return the reply, or raise a :class:`ModelError`."""
        payload = request_body.encoded(self._model, request, self._params)  # build_body's JSON
        response, text = self._send(payload)
        return self._parse(response, text)

    def close(self) -> None:
        """Close the HTTP client if this client created it."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _send(self, payload: bytes) -> tuple[httpx.Response, str]:
        """POST ``payload``, retrying transient failures within the total timeout; return the
        first 2xx response and its text."""
        deadline = time.monotonic() + self._timeouts.total
        for attempt in range(self._retry.max_retries + 1):
            last = attempt >= self._retry.max_retries
            try:
                response, text = self._attempt(payload, deadline)
            except httpx.TransportError as exc:
                why = f"could not reach {self._host} ({type(exc).__name__})"
                if last:
                    raise self._transport_error(exc, attempt + 1, deadline) from exc
                if not self._pause(attempt, None, why, deadline):
                    raise self._transport_error(
                        exc, attempt + 1, deadline, out_of_time=True
                    ) from exc
                continue
            if response.is_success:
                return response, text
            why = f"{self._host} returned {response.status_code}"
            if last or not _retryable(response.status_code):
                raise self._status_error(response, text)
            if not self._pause(attempt, response, why, deadline):
                raise self._status_error(response, text)
        raise AssertionError("unreachable")  # pragma: no cover

    def _attempt(self, payload: bytes, deadline: float) -> tuple[httpx.Response, str]:
        """One POST whose every wait, the body's bytes included, ends by ``deadline``."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise httpx.TimeoutException("the total timeout ran out")
        request = self._http.build_request(
            "POST",
            self._url,
            content=payload,
            headers=self._headers,
            timeout=self._timeouts.attempt(remaining),
        )
        response = self._http.send(request, stream=True)
        try:
            chunks = []
            for chunk in response.iter_bytes():
                chunks.append(chunk)
                if time.monotonic() > deadline:
                    raise httpx.ReadTimeout("the total timeout ran out mid-answer", request=request)
        except httpx.DecodingError as exc:
            raise self._format_error(response, f"a body that cannot be decoded ({exc})") from None
        finally:
            response.close()
        text = b"".join(chunks).decode(response.encoding or "utf-8", errors="replace")
        return response, self._redact(text).strip()

    def _pause(
        self, attempt: int, response: httpx.Response | None, why: str, deadline: float
    ) -> bool:
        """Log and sleep before retry ``attempt``; False (no sleep) when the retry could not
        start before the total timeout runs out."""
        delay = _retry_after(response, self._retry.retry_after_cap)
        asked = "" if delay is None else " (as the server's Retry-After asks)"
        if delay is None:
            delay = self._retry.backoff(attempt, self._random())
        if time.monotonic() + delay >= deadline:
            logger.warning(
                "%s; no time left for retry %d within the total timeout", why, attempt + 1
            )
            return False
        logger.warning(
            "%s; retry %d of %d in %.2fs%s", why, attempt + 1, self._retry.max_retries, delay, asked
        )
        self._sleep(delay)
        return True

    def _transport_error(
        self, exc: httpx.TransportError, attempts: int, deadline: float, out_of_time: bool = False
    ) -> APIConnectionError:
        """The error for a failed last attempt; ``out_of_time``: no retry fitted in the total."""
        reason = _ERRNO_PREFIX.sub("", _scrubbed(self._redact(str(exc)))) or type(exc).__name__
        tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
        timed_out = isinstance(exc, httpx.TimeoutException)
        total = f"the total timeout of {self._timeouts.total:g} s"
        if _timed_out(exc, deadline):
            return APITimeoutError(f"no answer from {self._shown_url} within {total} ({tries})")
        if timed_out and out_of_time:
            return APITimeoutError(
                f"no answer from {self._shown_url} ({tries}); {total} leaves no time for another"
            )
        if timed_out:
            return APITimeoutError(f"timed out waiting for {self._shown_url} ({tries}): {reason}")
        return APIConnectionError(
            f"could not reach {self._shown_url}: {reason[:1].lower()}{reason[1:]}"
        )

    def _status_error(self, response: httpx.Response, text: str) -> APIStatusError:
        """The :class:`APIStatusError` subclass for an error response (its body scrubbed of
        anything the secret scanner finds before it reaches the message or ``body``)."""
        text = _scrubbed(text)
        body = error_body(text)
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
        cls = error_class(status, message, error.get("code"))
        return cls(sentence, status_code=status, body=body, request_id=request_id)

    def _parse(self, response: httpx.Response, text: str) -> ChatResponse:
        """Read a 2xx chat-completions body into a :class:`ChatResponse` (see
        :mod:`harness.replies` for what is refused)."""
        data = _json_object(text)
        if data is None:
            raise self._format_error(response, f"a body that is not a JSON object: {text[:200]!r}")
        try:
            return read_completion(data, self._model)
        except ResponseFormatError as exc:
            raise self._format_error(response, str(exc)) from None

    def _format_error(self, response: httpx.Response, what: str) -> ResponseFormatError:
        what = _scrubbed(what)  # it may quote the body, which may echo a key
        return ResponseFormatError(f"{self._host} answered {response.status_code} with {what}")

    def _redact(self, text: str) -> str:
        """``text`` with the API key (and a password in the base URL) blanked out, in case a
        server or an error echoes it."""
        text = text.replace(self._api_key, "[redacted]")
        return text.replace(self._url_password, "[redacted]") if self._url_password else text


def _scrubbed(text: str) -> str:
    """``text`` with every secret :func:`harness.secrets.redact_text` finds redacted."""
    return redact_text(text)[0]


def _timeouts(timeout: Timeouts | float | None) -> Timeouts:
    if timeout is None:
        return Timeouts.from_env()
    if isinstance(timeout, Timeouts):
        return timeout
    return Timeouts.uniform(seconds("timeout", timeout))


def _timed_out(exc: httpx.TransportError, deadline: float) -> bool:
    """Whether ``exc`` is a timeout and the total timeout has run out."""
    return isinstance(exc, httpx.TimeoutException) and time.monotonic() >= deadline - 0.001


def _retryable(status: int) -> bool:
    return status in _RETRY_STATUSES or status >= 500


def _json_object(text: str) -> dict[str, Any] | None:
    """``text`` parsed as a JSON object, or None when it is not one."""
    try:
        value = json_depth.loads(text)  # a 200,000-deep body is refused, not a RecursionError
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
