"""``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``, the compact JSON a request
body is written in, with its encoder made once.

``json.dumps`` and ``JSONEncoder.encode`` build a new encoder for every call, which is a third
of what serialising one message costs; :func:`dumps` calls CPython's C encoder, made once,
with no check for cycles (the values it is given are trees: a message's wire form, a body's
fields), and the pure-Python encoder where there is no C one. The text is the same.
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
    return lambda value: "".join(chunks(value, 0))


dumps: Callable[[Any], str] = _made_once()
"""``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``."""
