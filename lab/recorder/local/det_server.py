"""Launcher of a deterministic llama-cpp-python server (run it instead of
``python -m llama_cpp.server``, with the same flags).

The stock server reuses the KV-cache prefix of the previous request, so the same request can
give different text depending on what came before it. This launcher resets the model's context
before every generation: each request is evaluated from scratch, and the same request always
gives the same output (at temperature 0). llama_cpp is imported only when the launcher runs.

``--no-repack`` (the launcher's own switch, taken off the command line before the server reads
it) loads the weights without llama.cpp's extra buffer types, as ``llama-server --no-repack``
does: repacked for AMX, they crash the server on a virtual machine whose CPU reports AMX but
does not grant it (a general protection fault in ``libggml-cpu`` on the first request, seen on
this project's machines on 2026-12-01).
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from typing import Any

__all__ = [
    "NO_REPACK",
    "install_fresh_context",
    "keep_weights_unpacked",
    "main",
    "take_switch",
    "watch_parent",
]

NO_REPACK = "--no-repack"
PARENT_ENV = "CTXLAB_SERVER_PARENT"
"""The pid of the process that started the launcher (set by ctxlab's local server): read
instead of the launcher's own parent at start, which may already be init when the recording
was killed while the launcher was starting."""
PARENT_POLL_SECONDS = 1.0
"""How often the launcher checks that the process that started it is still there."""


def watch_parent(parent: int, poll: float = PARENT_POLL_SECONDS) -> threading.Thread:
    """Exit this process as soon as its parent is no longer ``parent`` (it died, even by
    SIGKILL, and the server was handed to init): a recording killed outright must not leave a
    server generating on a core nobody reads. A daemon thread; llama.cpp releases the GIL
    while it computes, so the check runs mid-generation too."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        os._exit(1)

    thread = threading.Thread(target=watch, name="ctxlab-parent-watch", daemon=True)
    thread.start()
    return thread


def install_fresh_context(llama_class: Any) -> None:
    """Make ``llama_class.generate`` call ``self.reset()`` first (idempotent)."""
    original = llama_class.generate
    if getattr(original, "_ctxlab_fresh_context", False):
        return

    @functools.wraps(original)
    def generate(self: Any, tokens: Any, *args: Any, **kwargs: Any) -> Any:
        self.reset()  # n_tokens = 0: no prefix reuse, the whole prompt is evaluated again
        return original(self, tokens, *args, **kwargs)

    generate._ctxlab_fresh_context = True  # type: ignore[attr-defined]
    llama_class.generate = generate


def keep_weights_unpacked(bindings: Any) -> None:
    """Make ``bindings.llama_model_default_params()`` (the low-level module
    ``llama_cpp.llama_cpp`` that ``Llama`` builds its model parameters from) turn off the extra
    buffer types, so weights are not repacked (idempotent)."""
    original = bindings.llama_model_default_params
    if getattr(original, "_ctxlab_unpacked", False):
        return

    @functools.wraps(original)
    def default_params() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    default_params._ctxlab_unpacked = True  # type: ignore[attr-defined]
    bindings.llama_model_default_params = default_params


def take_switch(argv: list[str], switch: str) -> bool:
    """Remove every ``switch`` from ``argv`` in place; whether there was one."""
    found = switch in argv
    argv[:] = [arg for arg in argv if arg != switch]
    return found


def main() -> None:
    """Patch llama_cpp and run its server's command line (reads ``sys.argv``)."""
    watch_parent(int(os.environ.get(PARENT_ENV) or os.getppid()))
    import llama_cpp
    import llama_cpp.llama_cpp as bindings
    from llama_cpp.server.__main__ import main as serve

    install_fresh_context(llama_cpp.Llama)
    if take_switch(sys.argv, NO_REPACK):
        keep_weights_unpacked(bindings)
    serve()


if __name__ == "__main__":
    main()
