"""Order replay: the recorded answers served in recorded order, request bodies not matched.

This is a tool for mutation testing (:mod:`experiments.mutations`), never a reproduction. A
harness with one behaviour broken on purpose sends requests the recording does not hold, so the
ordinary replay (:mod:`experiments.recorder.matching`) stops it at the first one; order replay
answers the n-th request with the n-th recorded answer whatever was asked, so the run goes on
and the claims get judged. What it measures is the harness's handling of *those* answers, not a
model's behaviour: nothing it produces may be written to ``reports/`` (the CLI and the pytest
option refuse), and every line it prints says so (:data:`NOT_A_REPRODUCTION`).

A run that asks for more answers than the recording holds raises
:class:`~experiments.errors.CassetteMismatchError`; answers left unasked are not an error.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import httpx

from experiments.errors import CassetteMismatchError
from experiments.recorder.format import decode_body, load_cassette_json

if TYPE_CHECKING:
    from experiments.recorder.cassette import CassetteClient

__all__ = [
    "MATCH_MODES",
    "NOT_A_REPRODUCTION",
    "CassetteMatch",
    "OrderTransport",
    "replay_in_order",
]

CassetteMatch = Literal["body", "order"]
MATCH_MODES: tuple[str, ...] = ("body", "order")
"""``body``: the ordinary replay (each request must equal the recorded one); ``order``: this."""
NOT_A_REPRODUCTION = (
    "order replay (--cassette-match order): recorded answers served in order, requests not "
    "matched; NOT a reproduction"
)


class OrderTransport(httpx.BaseTransport):
    """Answers the n-th request with the n-th recorded response of the cassette at ``path``."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._answers = [i["response"] for i in load_cassette_json(path).get("interactions", [])]
        self.count = 0

    @property
    def unplayed(self) -> int:
        """Recorded answers no request asked for."""
        return max(0, len(self._answers) - self.count)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
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


@contextmanager
def replay_in_order(path: Path, rerecord_hint: str) -> Iterator[CassetteClient]:
    """A chat client answering from the cassette at ``path`` in order (the seal still checked);
    ``rerecord_hint`` (the record command) ends the error when there is no cassette."""
    from experiments.errors import CassetteMissingError
    from experiments.recorder.cassette import REPLAY_KEY, CassetteClient, read_provenance
    from experiments.recorder.seal import check_cassette
    from harness.client import ChatClient, RetryPolicy

    if not path.is_file():
        hint = f"record it with `{rerecord_hint}`" if rerecord_hint else "record it"
        raise CassetteMissingError(f"No cassette at {path}; {hint}.")
    check_cassette(path)
    provenance = read_provenance(path)
    with httpx.Client(transport=OrderTransport(path), trust_env=False) as http:
        client = ChatClient(
            model=provenance.model,
            base_url=provenance.base_url,
            api_key=REPLAY_KEY,
            params=provenance.params,
            retry=RetryPolicy(max_retries=0),
            http_client=http,
        )
        yield CassetteClient(client, path, provenance)
