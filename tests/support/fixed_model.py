"""A scripted model behind a real OpenAI-compatible HTTP server on 127.0.0.1: every chat
request is answered with the same text. For recording tests (named as scripted wherever used)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from support.loopback import QuietHTTPServer

ANSWER = "夜莺"


class FixedModel(BaseHTTPRequestHandler):
    """Answers every chat request with :data:`ANSWER`."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        answer = {
            "id": "cmpl-1",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": ANSWER},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
        }
        data = json.dumps(answer, ensure_ascii=False).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def fixed_model_server() -> Iterator[str]:
    """Serve :class:`FixedModel` on a free loopback port; yields its base URL (``.../v1``)."""
    server = QuietHTTPServer(("127.0.0.1", 0), FixedModel)  # never prints to stderr
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()
