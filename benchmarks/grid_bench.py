"""``ctxlab bench --concurrency 8`` over X-BENCH's grid against an OpenAI-compatible server on
127.0.0.1 that answers every request after a fixed 300 ms and serves requests concurrently (a
``ThreadingHTTPServer`` in a process of its own, so the bench's threads and the server's do not
share an interpreter lock).

The ratio is the bench's wall time ÷ (the serial model time ÷ 8), both from the same run: the
serial model time is the requests the server answered × 300 ms, what a bench one request at a
time would at least wait. 1.0 is eight requests in flight all the time; the gate is 1.3. The full
profile plays X-BENCH's own grid (18 conversations under its 11 conditions, 198 runs; enforced);
quick, the 2K conversations of seeds 1 and 2 in both languages (44 runs; report only). The bench
runs in this process with its modules imported before the clock starts (start-up is the wall
section's).
"""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import signal
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path
from typing import Any

from benchmarks.common import Row, timed

__all__ = ["rows"]

LATENCY = 0.3
CONCURRENCY = 8
PROBE = ("Answer each question below", "只根据上面的对话回答下列问题")
QUICK = ["--sizes", "2k", "--seeds", "1-2", "--langs", "zh,en"]


def _answer(body: dict[str, Any]) -> bytes:
    text = str(body["messages"][-1]["content"])
    if text == "ping":
        content = "o"
    elif text.startswith(PROBE):
        content = "\n".join(f"{n}. not known" for n in range(1, 13))
    else:
        content = "## SUMMARY\nThe team checks export papers and the shipment's seal."
    message = {"role": "assistant", "content": content}
    reply = {
        "id": "cmpl-1",
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10},
    }
    return json.dumps(reply, ensure_ascii=False).encode()


def _serve(port: Synchronized[int], served: Synchronized[int]) -> None:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            time.sleep(LATENCY)
            answer = _answer(body)
            with served.get_lock():
                served.value += 1
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: object) -> None:
            pass

    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the bench's "stop as Ctrl-C" handler

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128  # eight clients connecting at once never wait for a backlog

    server = Server(("127.0.0.1", 0), Handler)
    port.value = server.server_port
    server.serve_forever()


def _bench(base_url: str, grid: list[str], out: Path) -> int:
    from experiments.cli import main

    command = ["bench", "--provider", "openai-compatible", "--base-url", base_url]
    command += ["--model", "m", *grid, "--out", str(out), "--concurrency", str(CONCURRENCY)]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(command)


def _runs(out: Path) -> int:
    return len(json.loads((out / "bench-shard.json").read_text(encoding="utf-8"))["runs"])


def rows(quick: bool) -> list[Row]:
    import_bench()  # start-up is the wall section's; this section times the grid

    context = multiprocessing.get_context("fork")
    port, served = context.Value("i", 0), context.Value("i", 0)
    server = context.Process(target=_serve, args=(port, served), daemon=True)
    server.start()
    try:
        while not port.value:
            time.sleep(0.01)
        base_url = f"http://127.0.0.1:{port.value}/v1"
        with tempfile.TemporaryDirectory() as tmp:
            out, grid = Path(tmp) / "out", _selection(quick, Path(tmp))
            wall = timed(lambda: _succeeded(_bench(base_url, grid, out)))
            runs = _runs(out)
    finally:
        server.terminate()
        server.join(10)
    calls = served.value - 1  # the preflight's ping is not part of the grid
    serial = calls * LATENCY
    ratio = wall / (serial / CONCURRENCY) if calls else float("nan")
    played = "2K seeds 1-2, zh+en" if quick else "X-BENCH's grid"
    return [
        Row("bench grid", f"{played}: {runs} runs, {calls} model calls", wall, "s"),
        Row("bench grid", "serial model time (calls × 300 ms)", serial, "s"),
        Row(
            "bench grid",
            f"wall ÷ (serial model time ÷ {CONCURRENCY}), --concurrency {CONCURRENCY}",
            ratio,
            gate=1.3,
            enforced=not quick,
            note="300 ms per request on 127.0.0.1, served concurrently"
            + (
                "; quick: report only (3.6 s of model time at N=8 is too short beside the "
                "bench's fixed cost: its preflight request, tables and intervals)"
                if quick
                else ""
            ),
        ),
    ]


def import_bench() -> None:
    import pandas  # noqa: F401  (ctxlab bench imports it to write its tables)

    import experiments.x_bench  # noqa: F401


def _succeeded(status: int) -> None:
    if status != 0:
        raise RuntimeError(f"ctxlab bench ended with status {status}")


def _selection(quick: bool, folder: Path) -> list[str]:
    """The bench's grid options. X-BENCH's grid mixes seeds per size, which one ``--seeds``
    cannot say, so the full profile names its conversations in a file."""
    if quick:
        return QUICK
    from experiments.x_bench.schema import dump_conversation
    from experiments.x_bench.suite import bench_conversations

    conversations = folder / "x-bench.json"
    texts = [dump_conversation(c) for c in bench_conversations()]
    conversations.write_text("[" + ",".join(texts) + "]", encoding="utf-8")
    return ["--conversations", str(conversations)]
