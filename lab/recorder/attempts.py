"""Every request a recording sent, and whether an answer came back for it.

A request that got no answer (a timeout, a dropped connection) leaves nothing in the cassette.
When the client retried it and a later attempt was answered, replay serves that answer and all
is well; but when no attempt was answered and the experiment carried on (an engine that fails
open on a failed summary call, say), the live run and its replay part ways: replay sends the
request and finds nothing. :class:`AttemptLog` is the httpx event hooks that notice this, so
the recording is refused instead of written (and, with ``progress``, it prints one line per
answered request, as ``ctxlab record`` always did).
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections.abc import Callable
from typing import Any

import httpx

__all__ = ["AttemptLog"]

_KEY = "ctxlab_attempt"


class AttemptLog:
    """httpx event hooks (:attr:`hooks`) that count requests, their attempts and answers.

    Requests are numbered as the experiment sent them; a retry of a request (the same body
    again after an attempt that got no answer or an error status) is an attempt of that
    request, never a new request, and the progress shows it without ``-v``:
    ``request 3, attempt 1: no answer; retrying`` then ``request 3, attempt 2 → 200 in 0.4 s``.
    """

    def __init__(self, progress: Callable[[str], None] | None = None) -> None:
        self.progress = progress
        self._attempt_ids = itertools.count(1)
        self._requests = itertools.count(1)
        self._unanswered: dict[int, tuple[str, int]] = {}
        """Attempt id → (digest of its body, its request's number), for attempts no answer
        came back to yet."""
        self._answered: set[str] = set()
        self._retrying: dict[str, tuple[int, int]] = {}
        """Digest → (request number, attempts so far) of a request whose last attempt failed
        (no answer, or an error status): the next attempt with that body is its retry."""
        self._last_attempt: dict[str, int] = {}

    @property
    def hooks(self) -> dict[str, list[Any]]:
        return {"request": [self._on_request], "response": [self._on_response]}

    def never_answered(self) -> list[int]:
        """The requests (by number) none of whose attempts got an answer (a retry that
        succeeded makes its failed attempts harmless)."""
        numbers = {
            number for body, number in self._unanswered.values() if body not in self._answered
        }
        return sorted(numbers)

    def _on_request(self, request: httpx.Request) -> None:
        digest = hashlib.sha256(request.content).hexdigest()
        previous = self._last_attempt.get(digest)
        if previous is not None and previous in self._unanswered:  # it never got an answer
            number, attempts = self._unanswered_request(digest)
            self._say(f"  request {number}, attempt {attempts}: no answer; retrying")
        if digest in self._retrying:
            number, attempts = self._retrying[digest]
            attempt = attempts + 1
        else:
            number, attempt = next(self._requests), 1
        self._retrying[digest] = (number, attempt)  # until an answer says otherwise
        attempt_id = next(self._attempt_ids)
        self._last_attempt[digest] = attempt_id
        request.extensions[_KEY] = (attempt_id, number, attempt, time.perf_counter())
        self._unanswered[attempt_id] = (digest, number)

    def _unanswered_request(self, digest: str) -> tuple[int, int]:
        return self._retrying[digest]

    def _on_response(self, response: httpx.Response) -> None:
        attempt_id, number, attempt, start = response.request.extensions[_KEY]
        digest, _ = self._unanswered.pop(attempt_id)
        self._answered.add(digest)
        failed = response.status_code == 429 or response.status_code >= 500
        if not failed:
            self._retrying.pop(digest, None)  # the same body again is a new request
        label = f"request {number}" + (f", attempt {attempt}" if attempt > 1 else "")
        elapsed = time.perf_counter() - start
        note = " (the client may retry)" if failed else ""
        self._say(f"  {label} → {response.status_code} in {elapsed:.1f} s{note}")

    def _say(self, line: str) -> None:
        if self.progress is not None:
            self.progress(line)
