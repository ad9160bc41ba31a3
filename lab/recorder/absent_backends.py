"""The httpx backends vcrpy looks for on every cassette it enters, marked absent once.

vcrpy's patcher tries ``import httpx_curl_cffi``, ``import pyreqwest.compatibility.httpx`` and
``import httpx2`` each time a cassette is entered. A module that is not installed is not
remembered by Python, so each try searched every ``sys.path`` entry again: 3 failed imports
for each of a ``ctxlab run``'s 554 cassettes, about 0.2 s of its CPU (issue 48). A name Python
finds nowhere is set to ``None`` in ``sys.modules``, which is what a missing module reads as
to ``import``: the next try raises ``ModuleNotFoundError`` at once, as the search would have. A
backend that is installed is left alone (vcrpy patches it as before).
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache

HTTPX_BACKENDS = ("httpx_curl_cffi", "pyreqwest", "httpx2")
"""The top-level packages of the httpx backends vcrpy's patcher imports when they exist."""


@cache
def mark_absent_backends() -> tuple[str, ...]:
    """Set each of :data:`HTTPX_BACKENDS` that no finder can find to ``None`` in
    ``sys.modules`` (once per process); the names marked."""
    marked = []
    for name in HTTPX_BACKENDS:
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            sys.modules[name] = None  # type: ignore[assignment]
            marked.append(name)
    return tuple(marked)


__all__ = ["HTTPX_BACKENDS", "mark_absent_backends"]
