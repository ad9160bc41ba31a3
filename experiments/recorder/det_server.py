"""Launcher of a deterministic llama-cpp-python server (run it instead of
``python -m llama_cpp.server``, with the same flags).

The stock server reuses the KV-cache prefix of the previous request, so the same request can
give different text depending on what came before it. This launcher resets the model's context
before every generation: each request is evaluated from scratch, and the same request always
gives the same output (at temperature 0). llama_cpp is imported only when the launcher runs.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["install_fresh_context", "main"]


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


def main() -> None:
    """Patch llama_cpp and run its server's command line (reads ``sys.argv``)."""
    import llama_cpp
    from llama_cpp.server.__main__ import main as serve

    install_fresh_context(llama_cpp.Llama)
    serve()


if __name__ == "__main__":
    main()
