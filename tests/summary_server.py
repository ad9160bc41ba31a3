"""A summariser behind a real OpenAI-compatible HTTP server on 127.0.0.1, for the ``ctxlab
compact`` tests (tests/test_manual.py and the kill -9 suite): every request is answered with the
same summary. The server keeps each request body, signals when a request arrived, and can hold
its answer back for a while (so a test can kill the client while the request is on the wire)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["KEY_ENV", "SummaryServer", "compact_args"]

KEY_ENV = "CTXLAB_TEST_KEY"
"""The environment variable the ``ctxlab compact`` tests keep the server's API key in."""


def compact_args(workspace: Path, base_url: str, *extra: str, session: str = "s1") -> list[str]:
    """``ctxlab compact`` for user ``u``'s ``session`` under ``workspace``, with model ``m`` of the
    OpenAI-compatible server at ``base_url``; ``extra`` goes at the end."""
    return [
        "compact",
        "--workspace",
        str(workspace),
        "--user",
        "u",
        "--session",
        session,
        "--provider",
        "openai-compatible",
        "--base-url",
        base_url,
        "--model",
        "m",
        "--api-key-env",
        KEY_ENV,
        *extra,
    ]


class SummaryServer:
    """Serves ``summary`` on a free loopback port while the ``with`` block runs."""

    def __init__(self, summary: str) -> None:
        self.summary = summary
        self.received: list[bytes] = []
        """Every request body, in arrival order."""
        self.arrived = threading.Event()
        """Set when a request has been read (clear it to wait for the next)."""
        self.hold = 0.0
        """Seconds to wait between reading a request and answering it."""
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True  # a held answer must not keep the test waiting

    @property
    def url(self) -> str:
        """The base URL to give the client (``.../v1``)."""
        return f"http://127.0.0.1:{self._httpd.server_port}/v1"

    def bodies(self) -> list[dict[str, Any]]:
        """The request bodies, parsed."""
        return [json.loads(body) for body in self.received]

    def __enter__(self) -> SummaryServer:
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _answer(self) -> bytes:
        message = {"role": "assistant", "content": self.summary}
        reply = {
            "choices": [{"message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5},
        }
        return json.dumps(reply).encode()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                server.received.append(self.rfile.read(int(self.headers["Content-Length"])))
                server.arrived.set()
                time.sleep(server.hold)
                data = server._answer()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        return Handler
