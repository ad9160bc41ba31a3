"""How replayed requests are matched to recorded ones, and what a mismatch says.

Requests match on method, path and the *parsed* JSON body (:func:`json_body_matcher`); each
recorded answer is played once, in order. A request the recording does not hold raises
:class:`~harness.errors.CassetteMismatchError` from :class:`ReplayTransport`, naming the first
place it differs from the next unplayed recording (:func:`describe_difference`); recorded
requests the run never made raise it from :func:`check_all_played`.
"""

from __future__ import annotations

import functools
import json
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
from vcr.errors import CannotOverwriteExistingCassetteException
from vcr.request import Request as VcrRequest

from harness import json_depth
from lab.errors import CassetteMismatchError

__all__ = [
    "MATCH_ON",
    "ReplayTransport",
    "canonical_body",
    "check_all_played",
    "describe_difference",
    "json_body_matcher",
    "remember_canonical",
]

MATCH_ON = ("method", "path", "json_body")
"""What a replayed request must share with the recorded one."""
PREVIEW = 40


# --- the matcher ---------------------------------------------------------------------------


def json_body_matcher(
    r1: VcrRequest, r2: VcrRequest, known: Mapping[object, str] | None = None
) -> None:
    """vcrpy matcher: the bodies are equal as parsed JSON (key order and spacing ignored,
    ``1`` and ``1.0`` and ``true`` kept apart), or byte for byte when either is not JSON.

    vcrpy compares a request with every recording before the one it plays, so each body is
    canonicalised once (:func:`canonical_body`; ``known``: the canonical forms of the
    cassette's recorded bodies, by their bytes) and a mismatch is not described here: vcrpy
    only logs the message, and a request no recording answers is described by
    :class:`ReplayTransport` (:func:`describe_difference`)."""
    if canonical_body(r1, known) != canonical_body(r2, known):
        raise AssertionError("the JSON bodies differ")


_CANONICAL_BODIES: weakref.WeakKeyDictionary[VcrRequest, tuple[object, str]] = (
    weakref.WeakKeyDictionary()
)
"""Each live request's body and that body's canonical form (forgotten with the request)."""


def canonical_body(request: VcrRequest, known: Mapping[object, str] | None = None) -> str:
    """The canonical form of ``request``'s body (sorted keys, no spaces; ``repr`` of bytes that
    are not JSON), computed once per request and body: a recorded request is compared with
    every request made before its turn comes.

    A body byte for byte one of ``known``'s (a recorded body: a replay makes the requests it
    recorded) has that one's canonical form, and is not parsed at all."""
    body = request.body
    remembered = _CANONICAL_BODIES.get(request)
    if remembered is not None and remembered[0] is body:
        return remembered[1]
    canonical = known.get(body) if known is not None and isinstance(body, bytes | str) else None
    if canonical is None:
        canonical = _canonical(_parsed(body))
    _CANONICAL_BODIES[request] = (body, canonical)
    return canonical


def remember_canonical(request: VcrRequest, parsed: object) -> str:
    """Note (and return) the canonical form of a recorded ``request`` whose body is ``parsed``
    (the JSON the cassette stores) written out: the form :func:`canonical_body` would find by
    parsing the body again, which a replay's matching then never does."""
    canonical = _canonical(parsed)
    _CANONICAL_BODIES[request] = (request.body, canonical)
    return canonical


def describe_difference(new: Any, recorded: Any, where: str = "body") -> str:
    """A short description of the first place ``new`` differs from ``recorded``, such as
    ``messages[3].content differs`` or ``key max_tokens is only in this request``."""
    if isinstance(new, dict) and isinstance(recorded, dict):
        return _dict_difference(new, recorded, where)
    if isinstance(new, list) and isinstance(recorded, list):
        return _list_difference(new, recorded, where)
    if _canonical(new) == _canonical(recorded):
        return "no difference"
    return _scalar_difference(new, recorded, where)


def _dict_difference(new: dict[str, Any], recorded: dict[str, Any], where: str) -> str:
    prefix = "" if where == "body" else f"{where}."
    for key in [*recorded, *(k for k in new if k not in recorded)]:
        if key not in new:
            return f"key {prefix}{key} is only in the recording"
        if key not in recorded:
            return f"key {prefix}{key} is only in this request"
        if _canonical(new[key]) != _canonical(recorded[key]):
            return describe_difference(new[key], recorded[key], f"{prefix}{key}")
    return "no difference"


def _list_difference(new: list[Any], recorded: list[Any], where: str) -> str:
    for index, (a, b) in enumerate(zip(new, recorded, strict=False)):
        if _canonical(a) != _canonical(b):
            return describe_difference(a, b, f"{where}[{index}]")
    if len(new) != len(recorded):
        return f"{where} has {len(new)} items here, {len(recorded)} in the recording"
    return "no difference"


def _scalar_difference(new: Any, recorded: Any, where: str) -> str:
    shown = [_canonical(new), _canonical(recorded)]
    if all(len(value) <= PREVIEW for value in shown):
        return f"{where} is {shown[0]} here, {shown[1]} in the recording"
    return f"{where} differs"


def _parsed(body: Any) -> Any:
    if isinstance(body, bytes | str):
        try:
            return json_depth.loads(body)
        except ValueError:
            return body
    return body


def _canonical(value: Any) -> str:
    if isinstance(value, bytes):
        return repr(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


# --- mismatches ----------------------------------------------------------------------------


@functools.cache
def shared_transport() -> httpx.HTTPTransport:
    """The one HTTP transport every replay of a process goes through: vcrpy answers before it
    opens a connection, and building one costs an SSL context (about 35 ms; a ``ctxlab run`` built
    18 of them when each cassette had its own)."""
    return httpx.HTTPTransport()


class ReplayTransport(httpx.BaseTransport):
    """Counts requests and turns vcrpy's "no recorded answer" into CassetteMismatchError.

    ``advice`` ends the error message: what to do if the experiment changed on purpose.
    """

    def __init__(self, path: Path, advice: str) -> None:
        self._inner = shared_transport()
        self._path = path
        self._advice = advice
        self.count = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.count += 1
        try:
            return self._inner.handle_request(request)
        except CannotOverwriteExistingCassetteException as exc:
            reason = _mismatch_reason(exc)
            raise CassetteMismatchError(
                f"Request {self.count} does not match cassette {self._path} ({reason}); "
                f"if the experiment changed on purpose, {self._advice}."
            ) from None

    def close(self) -> None:
        """Nothing to close: the inner transport is the process's shared one, and a replay
        never opens a connection."""


def _mismatch_reason(exc: CannotOverwriteExistingCassetteException) -> str:
    """Why request ``number`` found no recorded answer, compared with the next unplayed one."""
    cassette = exc.cassette
    unplayed = [i for i in range(len(cassette)) if cassette.play_counts[i] == 0]
    if not unplayed:
        return f"the recording holds only {len(cassette)} requests"
    expected = cassette.data[unplayed[0]][0]
    request = exc.failed_request
    if (request.method, request.path) != (expected.method, expected.path):
        return f"{request.method} {request.path} here, {expected.method} {expected.path} recorded"
    return describe_difference(_parsed(request.body), _parsed(expected.body))


def check_all_played(cassette: Any, path: Path, advice: str) -> None:
    """Raise :class:`CassetteMismatchError` if the run left recorded requests unplayed."""
    unplayed = sum(1 for i in range(len(cassette)) if cassette.play_counts[i] == 0)
    if unplayed:
        made = len(cassette) - unplayed
        were = "request was" if unplayed == 1 else "requests were"
        raise CassetteMismatchError(
            f"{unplayed} recorded {were} never made (the run made {made} of "
            f"{len(cassette)} in cassette {path}); if the experiment changed on purpose, "
            f"{advice}."
        )
