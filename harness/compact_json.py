"""``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``, the compact JSON a request
body is written in, with its encoder made once.

``json.dumps`` and ``JSONEncoder.encode`` build a new encoder for every call, which is a third
of what serialising one message costs; :func:`dumps` calls CPython's C encoder, made once,
without its check for cycles, and the pure-Python encoder where there is no C one. The text
is the same, and so is the error: a value that holds itself runs the C encoder into the
recursion limit, and :func:`json.dumps` then reads it again to raise its own ``ValueError``
(``Circular reference detected``; a caller's ``params`` or ``extra`` can hold one).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["dumps"]


def _made_once() -> Callable[[Any], str]:
    make = getattr(json.encoder, "c_make_encoder", None)  # not in typeshed
    if make is None:  # pragma: no cover (not CPython)
        return json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    default = json.JSONEncoder().default  # raises json.dumps's TypeError
    chunks = make(None, default, json.encoder.encode_basestring, None, ":", ",", False, False, True)

    def dumps(value: Any) -> str:
        try:
            return "".join(chunks(value, 0))
        except RecursionError:  # a value that holds itself, or nested past the limit
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"))  # its error

    return dumps


dumps: Callable[[Any], str] = _made_once()
"""``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``."""
