"""How many requests go to one endpoint at once: a bound that halves while the server refuses
(429, 503) and grows back by one per window of answered requests (additive increase,
multiplicative decrease, as TCP and Inspect AI's adaptive connections do).

:class:`Limiter` is one endpoint's bound, shared by every thread that talks to it;
:class:`EndpointLimits` hands out one per endpoint. :class:`LimitedModel` wraps a chat model:
each request waits for a slot, and a refusal the client could not retry away is waited out
(the server's ``Retry-After``, else a short backoff) and sent again, a bounded number of times.
The client's own retries see refusals first; :meth:`Limiter.observe` is an httpx response hook
that lowers the bound on every refusal the client meets, honouring its ``Retry-After`` for
every thread (no new request starts before it has passed).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from harness.errors import APIStatusError
from harness.model import ChatModel, ChatRequest, ChatResponse, provider_of

__all__ = ["REFUSED", "EndpointLimits", "LimitedModel", "Limiter"]

REFUSED = frozenset({429, 503})
"""The statuses that say "too many requests": the bound is lowered on each."""
REFUSAL_ROUNDS = 8
"""How often :class:`LimitedModel` sends a refused request again after the client gave up."""
BACKOFF = 0.5
"""Seconds waited after a refusal without ``Retry-After`` (doubled each round, capped at 8)."""


@dataclass
class _Counts:
    requests: int = 0
    refusals: int = 0


class Limiter:
    """One endpoint's bound on requests in flight, between 1 and ``ceiling``."""

    def __init__(self, ceiling: int, clock: Callable[[], float] = time.monotonic) -> None:
        if ceiling < 1:
            raise ValueError(f"a concurrency bound is at least 1, not {ceiling}")
        self.ceiling = ceiling
        self.limit = ceiling
        self.in_flight = 0
        self.counts = _Counts()
        self._clock = clock
        self._cond = threading.Condition()
        self._paused_until = 0.0
        self._epoch = 0
        self._answered = 0
        self._ticket = threading.local()

    def acquire(self) -> None:
        """Wait for a slot (and for any ``Retry-After`` to pass); then hold it."""
        with self._cond:
            while True:
                wait = self._paused_until - self._clock()
                if wait <= 0 and self.in_flight < self.limit:
                    break
                self._cond.wait(timeout=wait if wait > 0 else None)
            self.in_flight += 1
            self.counts.requests += 1
            self._ticket.epoch = self._epoch

    def release(self, answered: bool) -> None:
        """Give the slot back; an answered request counts towards raising the bound."""
        with self._cond:
            self.in_flight -= 1
            if answered:
                self._answered += 1
                if self._answered >= self.limit and self.limit < self.ceiling:
                    self.limit, self._answered = self.limit + 1, 0
            self._cond.notify_all()

    def refused(self, retry_after: float | None) -> None:
        """The server refused a request of this thread: halve the bound (once per window: the
        refusals of requests sent before the last cut do not cut again) and pause every new
        request for ``retry_after`` seconds."""
        with self._cond:
            self.counts.refusals += 1
            if getattr(self._ticket, "epoch", self._epoch) == self._epoch:
                self.limit = max(1, self.limit // 2)
                self._epoch += 1
                self._answered = 0
            if retry_after:
                self._paused_until = max(self._paused_until, self._clock() + retry_after)
            self._cond.notify_all()

    def observe(self, response: httpx.Response) -> None:
        """An httpx response hook: every 429 or 503 the client meets lowers the bound."""
        if response.status_code in REFUSED:
            self.refused(retry_after(response.headers))


class EndpointLimits:
    """One :class:`Limiter` per endpoint, each bounded by ``ceiling``."""

    def __init__(self, ceiling: int) -> None:
        self.ceiling = ceiling
        self._limiters: dict[str, Limiter] = {}
        self._lock = threading.Lock()

    def of(self, endpoint: str) -> Limiter:
        with self._lock:
            return self._limiters.setdefault(endpoint, Limiter(self.ceiling))

    def refusals(self) -> int:
        with self._lock:
            return sum(limiter.counts.refusals for limiter in self._limiters.values())

    def requests(self) -> int:
        with self._lock:
            return sum(limiter.counts.requests for limiter in self._limiters.values())


def retry_after(headers: httpx.Headers) -> float | None:
    """The wait a refusal asks for (``retry-after-ms`` or ``Retry-After`` in seconds), capped at
    60 s; None when it names none (an HTTP date is left to the client's own retry)."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            value = float(headers.get(name, "")) / scale
        except ValueError:
            continue
        return min(max(value, 0.0), 60.0)
    return None


class LimitedModel:
    """``model`` behind ``limiter``: a slot per request; a refusal the client gave up on is sent
    again (at most :data:`REFUSAL_ROUNDS` times), after the wait the server asked for."""

    def __init__(
        self, model: ChatModel, limiter: Limiter, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.model = model  # provider_of looks through wrappers by ``model``
        self.limiter = limiter
        self._sleep = sleep

    @property
    def provider(self) -> str:
        """Who serves the wrapped model (compaction records name it)."""
        return provider_of(self.model)

    @property
    def model_name(self) -> str:
        return self.model.model_name

    def complete(self, request: ChatRequest) -> ChatResponse:
        for round_ in range(REFUSAL_ROUNDS + 1):
            self.limiter.acquire()
            answered = False
            try:
                response = self.model.complete(request)
                answered = True
                return response
            except APIStatusError as error:
                if error.status_code not in REFUSED or round_ == REFUSAL_ROUNDS:
                    raise
            finally:
                self.limiter.release(answered)
            self._sleep(min(8.0, BACKOFF * 2**round_))
        raise AssertionError("unreachable")  # pragma: no cover
