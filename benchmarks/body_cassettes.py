"""The request body from each message's piece, on traffic we did not write: every recorded
request of ``cassettes/`` (real model servers' sessions, their answers the models' own).

:mod:`benchmarks.turn_growth` measures :func:`harness.request_body.encoded` on a scripted
2,000-turn session of our own. Here each cassette is one session replayed as the client sent
it: its requests in order, a message that recurs in a later request the same object (as a
history holds it), every message fresh for each pass. Each pass serialises every request as
the client did before (``json.dumps`` of ``build_body``, encoded) and as it does now
(:func:`~harness.request_body.encoded`), alternated, CPU time; it also counts the requests whose
bytes are the recorded body's, byte for byte, both ways.

``python -m benchmarks.body_cassettes [--passes N]`` prints one table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from harness import request_body
from harness.messages import Message
from harness.model import ChatRequest
from lab.recorder.format import decode_body, load_cassette_json

__all__ = ["main", "sessions"]

ROOT = Path(__file__).resolve().parent.parent / "cassettes"

Sent = tuple[str, ChatRequest, dict[str, Any], bytes]
"""One recorded request: the model, the request, the other body fields, the recorded bytes."""


def _bodies(path: Path) -> Iterator[bytes]:
    for interaction in load_cassette_json(path).get("interactions", ()):
        request = interaction["request"]
        if request["method"] == "POST" and request["uri"].endswith("/chat/completions"):
            body = decode_body(request["body"])
            yield body.encode("utf-8") if isinstance(body, str) else body or b""


def sessions(root: Path = ROOT) -> list[list[Sent]]:
    """Each cassette's requests, parsed afresh: one message object per distinct message."""
    found = []
    for path in sorted(root.rglob("*.json")):
        held: dict[str, Message] = {}
        sent = []
        for raw in _bodies(path):
            body = json.loads(raw)
            messages = []
            for wire in body.pop("messages"):
                key = json.dumps(wire, sort_keys=True)
                messages.append(held.setdefault(key, Message.from_wire(wire)))
            model = body.pop("model")
            sent.append((model, ChatRequest(messages=tuple(messages)), body, raw))
        found.append(sent)
    return found


def _before(model: str, request: ChatRequest, params: dict[str, Any]) -> bytes:
    body = request_body.build(model, request, params)
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _timed(send: Callable[[str, ChatRequest, dict[str, Any]], bytes]) -> tuple[float, int]:
    """CPU seconds to serialise every recorded request once, and how many matched."""
    every = sessions()  # fresh messages: no piece is kept from another pass
    same = 0
    start = time.process_time()
    for session in every:
        for model, request, params, raw in session:
            same += send(model, request, params) == raw
    return time.process_time() - start, same


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.body_cassettes")
    parser.add_argument("--passes", type=int, default=7, help="alternated passes (default 7)")
    passes = parser.parse_args(argv).passes
    every = sessions()
    requests = sum(len(s) for s in every)
    messages = [len(r.messages) for s in every for _, r, _, _ in s]
    before: list[float] = []
    after: list[float] = []
    for _ in range(passes):
        for send, times in ((_before, before), (request_body.encoded, after)):
            seconds, same = _timed(send)
            times.append(seconds)
            if same != requests:
                print(f"{send.__name__}: {requests - same} of {requests} requests differ")
    b, a = statistics.median(before), statistics.median(after)
    print(f"{len(every)} cassettes, {requests} requests, {statistics.mean(messages):.1f} messages")
    print(f"a request on average (most {max(messages)}); CPU medians of {passes} passes")
    print("| serialising | CPU, every request | per request |")
    print("| --- | --- | --- |")
    print(f"| before: json.dumps(build_body) | {b * 1e3:.1f} ms | {b / requests * 1e6:.1f} µs |")
    print(f"| after: request_body.encoded | {a * 1e3:.1f} ms | {a / requests * 1e6:.1f} µs |")
    print(f"after ÷ before: {a / b:.2f}×")


if __name__ == "__main__":
    main()
