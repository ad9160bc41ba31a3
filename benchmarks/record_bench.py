"""``ctxlab record --concurrency 8`` of every recordable experiment (E2, E3, E4 and X-BENCH's
whole plan) against a DeepSeek-shaped server on 127.0.0.1 (``--provider deepseek`` with its base
URL there: DeepSeek's usage fields, its ``GET /models`` for the key probe) that answers every
request after a fixed 300 ms and serves requests concurrently (a ``ThreadingHTTPServer`` in a
process of its own).

The ratio is the recording's wall time ÷ (the serial model time ÷ 8), both from the same run:
the serial model time is the chat requests the server answered × 300 ms, what a recording one
request at a time would at least wait. It times :func:`lab.recording.record`, the
recording behind ``ctxlab record`` (the replay of the reports it runs afterwards is
``ctxlab run``'s cost, timed by the wall section), with its modules imported before the clock
starts. Full: every experiment, X-BENCH's 198 cassettes (enforced, ≤ 1.3); quick: E2, E3, E4 and
the first ninth of X-BENCH's plan (report only).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path

from benchmarks.common import Row, timed

__all__ = ["rows"]

LATENCY = 0.3
CONCURRENCY = 8
PROBE = ("Answer each question below", "只根据上面的对话回答下列问题")
EXPERIMENTS = ["E2", "E3", "E4", "X-BENCH"]
KEY_ENV = "CTXLAB_BENCH_DEEPSEEK_KEY"


def _answer(body: dict[str, object]) -> bytes:
    messages = body["messages"]
    assert isinstance(messages, list)
    text = str(messages[-1]["content"])
    if text.startswith(PROBE):
        content = "\n".join(f"{n}. not known" for n in range(1, 13))
    else:
        content = "## SUMMARY\nThe team checks export papers and the shipment's seal."
    usage = {
        "prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110,
        "prompt_cache_hit_tokens": 64, "prompt_cache_miss_tokens": 36,
    }  # fmt: skip
    reply = {
        "id": "cmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "logprobs": None, "finish_reason": "stop"}],
        "usage": usage, "system_fingerprint": "fp_local",
    }  # fmt: skip
    return json.dumps(reply, ensure_ascii=False).encode()


def _serve(port: Synchronized[int], served: Synchronized[int]) -> None:
    class Handler(BaseHTTPRequestHandler):
        def _send(self, answer: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def do_GET(self) -> None:  # the key probe: GET /models
            self._send(b'{"object": "list", "data": [{"id": "deepseek-flash"}]}')

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            time.sleep(LATENCY)
            answer = _answer(body)
            with served.get_lock():
                served.value += 1
            self._send(answer)

        def log_message(self, *args: object) -> None:
            pass

    signal.signal(signal.SIGTERM, signal.SIG_DFL)

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128

    server = Server(("127.0.0.1", 0), Handler)
    port.value = server.server_port
    server.serve_forever()


def _record(base_url: str, cassettes: Path, quick: bool) -> list[str]:
    from lab.recording import Recording, record

    source = Recording(
        "deepseek",
        base_url=base_url,
        api_key_env=KEY_ENV,
        concurrency=CONCURRENCY,
        slice=(1, 9) if quick else None,
    )
    lines: list[str] = []
    record(EXPERIMENTS, source, cassettes, force=False, progress=lines.append)
    return lines


def rows(quick: bool) -> list[Row]:
    import experiments  # noqa: F401  (importing the suite hands it to lab)
    import lab.record_pool
    import lab.recording  # noqa: F401
    from lab.registry import EXPERIMENTS as LOADED

    loaded = [LOADED[name] for name in EXPERIMENTS]  # imported before the clock starts
    assert len(loaded) == len(EXPERIMENTS)

    os.environ[KEY_ENV] = "sk-bench-not-a-real-key"
    context = multiprocessing.get_context("fork")
    port, served = context.Value("i", 0), context.Value("i", 0)
    server = context.Process(target=_serve, args=(port, served), daemon=True)
    server.start()
    try:
        while not port.value:
            time.sleep(0.01)
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "cassettes"
            wall = timed(lambda: _record(f"http://127.0.0.1:{port.value}", folder, quick))
            count = sum(1 for _ in folder.rglob("*.json"))
    finally:
        server.terminate()
        server.join(10)
    return _rows(quick, wall, served.value, count)


def _rows(quick: bool, wall: float, calls: int, cassettes: int) -> list[Row]:
    serial = calls * LATENCY
    ratio = wall / (serial / CONCURRENCY) if calls else float("nan")
    played = "E2, E3, E4, X-BENCH slice 1/9" if quick else "E2, E3, E4, X-BENCH"
    return [
        Row("record grid", f"{played}: {cassettes} cassettes, {calls} model calls", wall, "s"),
        Row("record grid", "serial model time (calls × 300 ms)", serial, "s"),
        Row(
            "record grid",
            f"wall ÷ (serial model time ÷ {CONCURRENCY}), --concurrency {CONCURRENCY}",
            ratio,
            gate=1.3,
            enforced=not quick,
            note="DeepSeek-shaped server on 127.0.0.1, 300 ms per request, served concurrently"
            + ("; quick: report only" if quick else ""),
        ),
    ]
