"""A summariser behind a real OpenAI-compatible HTTP server on 127.0.0.1, for the ``ctxlab
compact`` tests (tests/harness/compaction/test_manual.py and the kill -9 suite): every request is
answered with the
same summary. The server keeps each request body, signals when a request arrived, and can hold
its answer back for a while (so a test can kill the client while the request is on the wire)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from support.loopback import Reply, ScriptedHTTPServer, json_reply

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


class SummaryServer(ScriptedHTTPServer):
    """Serves ``summary`` on a free loopback port while the ``with`` block runs; the request
    bodies are in :attr:`bodies`."""

    def __init__(self, summary: str) -> None:
        super().__init__(answer=self._summarise)
        self.summary = summary
        self.arrived = threading.Event()
        """Set when a request has been read (clear it to wait for the next)."""
        self.hold = 0.0
        """Seconds to wait between reading a request and answering it."""
        self.httpd.daemon_threads = True  # a held answer must not keep the test waiting

    @property
    def url(self) -> str:
        """The base URL to give the client (``.../v1``)."""
        return self.base_url

    def _summarise(self, body: dict[str, Any]) -> Reply:
        self.arrived.set()
        time.sleep(self.hold)
        message = {"role": "assistant", "content": self.summary}
        return json_reply(
            {
                "choices": [{"message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5},
            }
        )
