"""What probes talk to: an OpenAI-compatible server on 127.0.0.1 that answers from a script,
a model in process, agents on real folders, and child processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from harness.client import ChatClient, RetryPolicy
from harness.harness_agent import HarnessAgent
from harness.model import ChatModel

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-probe0000000000000000000000"
"""The key the probes' clients send (fake; the servers never check it)."""

Reply = tuple[int, bytes, str]


def completion(message: dict[str, Any]) -> Reply:
    """A 200 chat-completions body around ``message``."""
    body = {
        "id": "cmpl-probe",
        "model": "probe-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
    }
    return 200, json.dumps(body).encode(), "application/json"


def say(text: str) -> Reply:
    return completion({"role": "assistant", "content": text})


def raw(status: int, body: str | bytes, content_type: str = "text/plain") -> Reply:
    return status, body.encode() if isinstance(body, str) else body, content_type


class Server:
    """Answers each POST with the next scripted reply, then with ``answer(body)`` (or "ok");
    keeps every request body. A ``with`` block serves on a free loopback port."""

    def __init__(
        self, replies: list[Reply] | None = None, answer: Callable[[Any], Reply] | None = None
    ) -> None:
        self.replies = list(replies or [])
        self.answer = answer
        self.bodies: list[Any] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                body = json.loads(data)
                server.bodies.append(body)
                if server.replies:
                    status, out, kind = server.replies.pop(0)
                elif server.answer is not None:
                    status, out, kind = server.answer(body)
                else:
                    status, out, kind = say("ok")
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda *args: None  # type: ignore[method-assign]
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"
        # its loop notices shutdown() within 0.05 s (socketserver's default, 0.5 s, kept each
        # probe that stops a server waiting for it)
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def client(self, key: str = KEY) -> ChatClient:
        return ChatClient("probe-model", base_url=self.url, api_key=key, retry=RetryPolicy(0))

    def __enter__(self) -> Server:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def agent(root: Path, model: ChatModel, store: Any = "eventlog", **extra: Any) -> HarnessAgent:
    """User ``u``'s session ``s1`` under ``root``, compaction and memory work off unless
    ``extra`` says otherwise; ``store`` is ``"eventlog"`` or ``"state"``."""
    options: dict[str, Any] = {
        "disable_compaction": True,
        "disable_memory_hooks": True,
        "disable_memory_tools": True,
        **extra,
    }
    return HarnessAgent(
        model, "system", workspace_root=root, user_id="u", session_id="s1", store=store,
        **options,
    )  # fmt: skip


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}


def python(code: str, *args: str, **popen: Any) -> subprocess.Popen[str]:
    """A child Python process running ``code`` (stdout and stderr piped)."""
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, cwd=ROOT, env=env(), **popen,
    )  # fmt: skip


def ctxlab(*args: str, cwd: Path = ROOT, **popen: Any) -> subprocess.Popen[str]:
    """``ctxlab ARGS`` as a child process (``python -m experiments``) in ``cwd``."""
    return subprocess.Popen(
        [sys.executable, "-m", "experiments", *args], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, cwd=cwd, env={**env(), **popen.pop("env", {})},
        **popen,
    )  # fmt: skip


def wait_for(predicate: Callable[[], bool], proc: subprocess.Popen[str] | None = None) -> None:
    """Return when ``predicate()`` holds (an event a child makes), polling; fail after 120 s or
    when ``proc`` ends first."""
    deadline = time.monotonic() + 120
    while not predicate():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the child ended first: {proc.communicate()}")
        if time.monotonic() > deadline:
            raise TimeoutError("the event never came")
        time.sleep(0.005)  # a poll of the event, not a fixed wait
