"""Real HTTP servers on 127.0.0.1 for provider-fault tests.

* :class:`ScriptedHTTPServer`: a ThreadingHTTPServer answering ``POST /chat/completions`` with a
  queue of raw replies (status, body bytes, content type), recording every request body.
* :class:`SilentServer`: a socket that accepts connections and never answers.
* :class:`TricklingServer`: answers the headers, then one byte of body every ``gap`` seconds,
  forever.
* :class:`RawServer`: answers every request with the same raw bytes.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, bytes, str]


def completion(message: dict[str, Any], usage: Any = None) -> dict[str, Any]:
    """A chat-completions body around ``message``."""
    body: dict[str, Any] = {
        "id": "cmpl-1",
        "model": "served-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
    if usage is not None:
        body["usage"] = usage
    return body


def json_reply(body: Any, status: int = 200) -> Reply:
    return status, json.dumps(body, ensure_ascii=False).encode(), "application/json"


def text_reply(text: str, status: int = 200) -> Reply:
    return status, text.encode(), "text/plain; charset=utf-8"


def say(text: str) -> Reply:
    """A plain assistant answer."""
    usage = {"prompt_tokens": 10, "completion_tokens": 2}
    return json_reply(completion({"role": "assistant", "content": text}, usage))


POLL_INTERVAL = 0.05
"""How often a test server's loop looks whether ``shutdown()`` was asked. socketserver's default,
0.5 s, kept every test that stops a server waiting for it: about 0.25 s each, 1.5 s in a test
that starts three."""


class QuietHTTPServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer that never writes to stderr: a handler's error (a client that hung
    up mid-answer: ``BrokenPipeError``) is kept in :attr:`errors` instead of printed, so a test
    that reads its own stderr never reads a server thread's (one seal test failed so
    under load). Its loop notices ``shutdown()`` within :data:`POLL_INTERVAL`."""

    daemon_threads = True

    def serve_forever(self, poll_interval: float = POLL_INTERVAL) -> None:
        super().serve_forever(poll_interval)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.errors: list[BaseException] = []

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        error = sys.exc_info()[1]
        if error is not None:
            self.errors.append(error)


class ScriptedHTTPServer:
    """Answers each POST with the next queued reply; once the queue is empty, with
    ``answer(body)`` when given, else ``say("ok")``."""

    def __init__(
        self,
        replies: list[Reply] | None = None,
        answer: Callable[[dict[str, Any]], Reply] | None = None,
        port: int = 0,
    ) -> None:
        self.replies = list(replies or [])
        self.answer = answer
        self.bodies: list[dict[str, Any]] = []
        self.raw_bodies: list[bytes] = []
        """Each body's bytes as the server read them (``bodies`` holds them parsed)."""
        self.httpd = QuietHTTPServer(("127.0.0.1", port), self._handler())
        self.base_url = f"http://127.0.0.1:{self.httpd.server_port}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                server.raw_bodies.append(raw)
                request = json.loads(raw)
                server.bodies.append(request)
                status, body, content_type = server.next_reply(request)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for name, value in server.extra_headers(status):
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def extra_headers(self, status: int) -> list[tuple[str, str]]:
        """More headers for a reply of ``status`` (none here; a subclass may add some)."""
        return []

    def next_reply(self, body: dict[str, Any]) -> Reply:
        if self.replies:
            return self.replies.pop(0)
        return self.answer(body) if self.answer else say("ok")

    def __enter__(self) -> ScriptedHTTPServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(timeout=5)


class SilentServer:
    """Accepts every connection on 127.0.0.1 and never sends a byte; counts the connections."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.05)
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.accepted: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.accepted.append(conn)
            self.on_accept(conn)

    def on_accept(self, conn: socket.socket) -> None:
        """Do nothing: the client waits for an answer that never comes."""

    def __enter__(self) -> SilentServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for conn in self.accepted:
            conn.close()
        self.sock.close()


class TricklingServer(SilentServer):
    """Sends a 200 with a long body one byte every ``gap`` seconds, so no read ever times out."""

    gap = 0.05

    def on_accept(self, conn: socket.socket) -> None:
        threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        head = (
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
        )
        try:
            conn.recv(65536)
            conn.sendall(head)
            while not self._stop.is_set():
                conn.sendall(b" ")
                time.sleep(self.gap)
        except OSError:
            return


class RawServer(SilentServer):
    """Answers every request with the same raw HTTP response bytes, then closes."""

    def __init__(self, response: bytes) -> None:
        super().__init__()
        self.response = response

    def on_accept(self, conn: socket.socket) -> None:
        try:
            conn.recv(65536)
            conn.sendall(self.response)
        except OSError:
            return
