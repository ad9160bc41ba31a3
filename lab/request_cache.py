"""A request cache on disk that benches (and the shards of one bench, on one machine) share, so
a rerun or another shard never pays twice for the same model request.

An entry's key is the SHA-256 of the canonical JSON (sorted keys, no spaces) of the endpoint,
the request's body with :data:`VOLATILE` fields dropped, and a replicate number: the how-many-th
time one run sends that same body (the second identical request of a run is a second sample,
not the first one's answer again). The entry holds the answer: its message, finish reason, usage
and model. Entries are written atomically (a temp file renamed over), and a miss is asked under
a per-key ``flock`` (:func:`harness.fs.locks.file_lock`), so two shards sending the same request
at once pay once: the second waits and reads the first's answer.

The cache is an accelerator, never a record: cassettes stay the recorded truth, and the folder
can be deleted at any time (a missing or unreadable entry is a miss; folders are made again).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness import Message
from harness.fs.files import write_atomic
from harness.fs.locks import file_lock
from harness.model import ChatModel, ChatRequest, ChatResponse, Usage, provider_of

__all__ = ["VOLATILE", "CachedModel", "RequestCache", "canonical_key"]

VOLATILE = frozenset({"user", "metadata", "stream", "stream_options", "request_id", "store"})
"""Body fields that do not change the answer (who asks, how it is delivered): not in the key."""
FORMAT = 1


def canonical_key(endpoint: str, body: Mapping[str, Any], replicate: int) -> str:
    kept = {k: v for k, v in body.items() if k not in VOLATILE}
    text = json.dumps(
        {"endpoint": endpoint, "body": kept, "replicate": replicate, "format": FORMAT},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class RequestCache:
    """The cache folder; counts its hits and misses (thread-safe)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> ChatResponse | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            return _response(data)
        except (OSError, ValueError, KeyError, TypeError):
            return None  # deleted, never written, or damaged: a miss

    def put(self, key: str, response: ChatResponse) -> None:
        write_atomic(self._path(key), json.dumps(_data(response), ensure_ascii=False))

    def answer(self, key: str, ask: ChatModel, request: ChatRequest) -> ChatResponse:
        """The cached answer of ``key``, else ``ask``'s (then cached), asked once across
        threads and processes."""
        found = self.get(key)
        if found is None:
            locks = self.folder / "locks"
            locks.mkdir(parents=True, exist_ok=True)  # again: the folder may have been deleted
            with file_lock(locks / f"{key[:16]}.lock", timeout=-1, what="the request cache"):
                found = self.get(key)
                if found is None:
                    self._count(hit=False)
                    response = ask.complete(request)
                    self.put(key, response)
                    return response
        self._count(hit=True)
        return found

    def _count(self, hit: bool) -> None:
        with self._lock:
            if hit:
                self.hits += 1
            else:
                self.misses += 1

    def line(self) -> str:
        return f"request cache {self.folder}: {self.hits} hit(s), {self.misses} miss(es)"


class CachedModel:
    """``model`` with answers from ``cache``: one per run, so it counts replicates."""

    def __init__(self, model: ChatModel, cache: RequestCache, endpoint: str) -> None:
        self.model = model  # provider_of looks through wrappers by ``model``
        self.cache = cache
        self.endpoint = endpoint
        self._seen: Counter[str] = Counter()

    @property
    def provider(self) -> str:
        """Who serves the wrapped model (compaction records name it)."""
        return provider_of(self.model)

    @property
    def model_name(self) -> str:
        return self.model.model_name

    def complete(self, request: ChatRequest) -> ChatResponse:
        body = _body(self.model, request)
        plain = canonical_key(self.endpoint, body, 0)
        replicate = self._seen[plain]
        self._seen[plain] += 1
        key = plain if replicate == 0 else canonical_key(self.endpoint, body, replicate)
        return self.cache.answer(key, self.model, request)


def _body(model: object, request: ChatRequest) -> dict[str, Any]:
    """The body the client would send (its ``build_body``, looked up through wrappers); else
    the request's own fields with the model's name."""
    name, seen = getattr(model, "model_name", ""), 0
    while model is not None and seen < 8:
        build = getattr(model, "build_body", None)
        if callable(build):
            return dict(build(request))
        model, seen = getattr(model, "model", None), seen + 1
    return {
        "model": name,
        "messages": [m.to_wire() for m in request.messages],
        "tools": [dict(t) for t in request.tools],
        "tool_choice": request.tool_choice,
        "max_tokens": request.max_tokens,
        **request.extra,
    }


def _data(response: ChatResponse) -> dict[str, Any]:
    usage = response.usage.to_dict() if response.usage is not None else None
    return {
        "format": FORMAT,
        "message": response.message.to_wire(),
        "finish_reason": response.finish_reason,
        "usage": usage,
        "model": response.model,
    }


def _response(data: dict[str, Any]) -> ChatResponse | None:
    if data.get("format") != FORMAT:
        return None
    usage = data["usage"]
    return ChatResponse(
        message=Message.from_wire(data["message"]),
        finish_reason=str(data["finish_reason"]),
        usage=Usage(**usage) if isinstance(usage, dict) else None,
        model=str(data["model"]),
    )
