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
    """httpx event hooks (:attr:`hooks`) that count attempts and their answers."""

    def __init__(self, progress: Callable[[str], None] | None = None) -> None:
        self.progress = progress
        self._numbers = itertools.count(1)
        self._unanswered: dict[int, str] = {}
        """Attempt number → digest of its body, for attempts no answer came back to yet."""
        self._answered: set[str] = set()

    @property
    def hooks(self) -> dict[str, list[Any]]:
        return {"request": [self._on_request], "response": [self._on_response]}

    def never_answered(self) -> list[int]:
        """The attempts that got no answer and whose request was never answered on a later
        attempt either (a retry that succeeded makes its failed attempts harmless)."""
        return [n for n, body in sorted(self._unanswered.items()) if body not in self._answered]

    def _on_request(self, request: httpx.Request) -> None:
        number = next(self._numbers)
        request.extensions[_KEY] = (number, time.perf_counter())
        self._unanswered[number] = hashlib.sha256(request.content).hexdigest()

    def _on_response(self, response: httpx.Response) -> None:
        number, start = response.request.extensions[_KEY]
        self._answered.add(self._unanswered.pop(number))
        if self.progress is not None:
            elapsed = time.perf_counter() - start
            self.progress(f"  request {number} → {response.status_code} in {elapsed:.1f} s")
