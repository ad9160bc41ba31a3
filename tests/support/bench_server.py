"""An OpenAI-compatible server on 127.0.0.1 that answers X-BENCH's requests (summary, probe,
preflight) from their content alone, concurrently, after an optional fixed latency; it counts
the requests in flight at once and can refuse some with 429 and ``Retry-After``."""

from __future__ import annotations

import threading
import time
from typing import Any

from support.loopback import Reply, ScriptedHTTPServer, completion, json_reply

PROBE = "Answer each question below"
ZH_PROBE = "只根据上面的对话回答下列问题"


def bench_answer(body: dict[str, Any]) -> Reply:
    """Summaries for summary calls, a numbered answer for the probe, "o" for the preflight."""
    text = body["messages"][-1]["content"]
    if text == "ping":
        content = "o"
    elif text.startswith((PROBE, ZH_PROBE)):
        content = "\n".join(f"{n}. not known" for n in range(1, 13))
    else:
        content = "## SUMMARY\nThe team checks export papers."
    usage = {"prompt_tokens": 100, "completion_tokens": 10}
    return json_reply(completion({"role": "assistant", "content": content}, usage))


def is_probe(body: dict[str, Any]) -> bool:
    return str(body["messages"][-1]["content"]).startswith((PROBE, ZH_PROBE))


class BenchServer(ScriptedHTTPServer):
    """Answers :func:`bench_answer` after ``latency`` seconds; with ``refuse_every`` k, every
    k-th request is refused (429, ``Retry-After: retry_after``) instead. ``port`` 0 is any free
    port; a given one serves the URL a closed server had (a bench's journal names its URL)."""

    def __init__(
        self, latency: float = 0.0, refuse_every: int = 0, retry_after: str = "0", port: int = 0
    ) -> None:
        super().__init__(answer=self._reply, port=port)
        self.latency, self.refuse_every, self.retry_after = latency, refuse_every, retry_after
        self.in_flight = self.most_in_flight = self.seen = self.refused = self.probes = 0
        self.hold_after: int | None = None
        """Once this many probes are answered, every later request waits for :attr:`release`."""
        self.release = threading.Event()
        self._lock = threading.Lock()

    def reset(self) -> None:
        """Counts from zero again (one server for two benches: their journals name its URL)."""
        with self._lock:
            self.most_in_flight = self.seen = self.refused = self.probes = 0
            self.bodies.clear()

    def extra_headers(self, status: int) -> list[tuple[str, str]]:
        return [("Retry-After", self.retry_after)] if status == 429 else []

    def _reply(self, body: dict[str, Any]) -> Reply:
        if self.hold_after is not None and self.probes >= self.hold_after:
            self.release.wait(60)
        with self._lock:
            self.seen += 1
            refuse = self.refuse_every and self.seen % self.refuse_every == 0
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if self.latency:
                time.sleep(self.latency)
            if refuse:
                with self._lock:
                    self.refused += 1
                return 429, b'{"error": {"message": "slow down"}}', "application/json"
            if is_probe(body):
                with self._lock:
                    self.probes += 1
            return bench_answer(body)
        finally:
            with self._lock:
                self.in_flight -= 1
