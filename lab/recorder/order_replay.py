"""Order replay: the recorded answers served in recorded order, request bodies not matched.

This is a tool for mutation testing (:mod:`lab.mutations`), never a reproduction. A
harness with one behaviour broken on purpose sends requests the recording does not hold, so the
ordinary replay (:mod:`lab.recorder.matching`) stops it at the first one; order replay
answers the n-th request with the n-th recorded answer whatever was asked, so the run goes on
and the claims get judged. What it measures is the harness's handling of *those* answers, not a
model's behaviour: nothing it produces may be written to ``reports/`` (the CLI and the pytest
option refuse), and every line it prints says so (:data:`NOT_A_REPRODUCTION`).

A run that asks for more answers than the recording holds raises
:class:`~lab.errors.CassetteMismatchError`; answers left unasked are not an error.
An experiment whose requests fall into kinds it can tell apart (X-BENCH: the summary calls, then
one probe) may serve each kind from its own part of the cassette (:class:`OrderPart`), the last
answer of a part repeated when a mutated harness asks for more than it holds, so that a harness
that compacts more often still gets its probe answered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import httpx

from lab.errors import CassetteMismatchError
from lab.recorder.format import decode_body, load_cassette_json

__all__ = [
    "MATCH_MODES",
    "NOT_A_REPRODUCTION",
    "CassetteMatch",
    "OrderPart",
    "OrderTransport",
]

CassetteMatch = Literal["body", "order"]
MATCH_MODES: tuple[str, ...] = ("body", "order")
"""``body``: the ordinary replay (each request must equal the recorded one); ``order``: this."""
NOT_A_REPRODUCTION = (
    "order replay (--cassette-match order): recorded answers served in order, requests not "
    "matched; NOT a reproduction"
)


@dataclass(frozen=True)
class OrderPart:
    """Which of a cassette's recorded answers an order-replay client serves."""

    answers: tuple[int | None, int | None] = (None, None)
    """``(start, stop)`` of the part of the recorded answers, as a slice's (``(-1, None)``: the
    last)."""
    repeat_last: bool = False
    """Serve the part's last answer again once the part is used up, instead of raising (there
    must be one)."""


class OrderTransport(httpx.BaseTransport):
    """Answers the n-th request with the n-th recorded response of the cassette at ``path``
    (of ``part`` of them: :class:`OrderPart`); ``interactions``: the cassette's, already read
    (else the file is read here)."""

    def __init__(
        self,
        path: Path,
        part: OrderPart | None = None,
        interactions: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        self._path = path
        part = part or OrderPart()
        if interactions is None:
            interactions = load_cassette_json(path).get("interactions", [])
        recorded = [i["response"] for i in interactions]
        self._answers = recorded[slice(*part.answers)]
        self._repeat = part.repeat_last and bool(self._answers)
        self.count = 0

    @property
    def unplayed(self) -> int:
        """Recorded answers no request asked for."""
        return max(0, len(self._answers) - self.count)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        if self._repeat and self.count >= len(self._answers):
            self.count = len(self._answers) - 1  # the part's last answer, again
        if self.count >= len(self._answers):
            raise CassetteMismatchError(
                f"Request {self.count + 1} has no recorded answer left in cassette {self._path} "
                f"({len(self._answers)} recorded; {NOT_A_REPRODUCTION})."
            )
        answer: dict[str, Any] = self._answers[self.count]
        self.count += 1
        body = decode_body(answer.get("body"))
        content = body.encode("utf-8") if isinstance(body, str) else (body or b"")
        headers = {
            name: values[0] if isinstance(values, list) else values
            for name, values in (answer.get("headers") or {}).items()
            if name.lower() not in {"content-length", "content-encoding", "transfer-encoding"}
        }
        return httpx.Response(
            int(answer["status"]["code"]), headers=headers, content=content, request=request
        )
