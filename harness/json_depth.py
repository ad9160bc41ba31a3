"""JSON read with a bound on nesting depth, checked before the parser runs.

``json.loads`` recurses once per level: 200,000 nested ``[`` in a tool call's arguments, a reply
or a file raise ``RecursionError`` (or, in a thread with a small stack, worse) from deep inside
the library. :func:`loads` measures the depth first, in one pass over the structural characters
outside strings, and refuses anything deeper than :data:`MAX_JSON_DEPTH` with a ``ValueError``
that says so, the same error every caller already handles for malformed JSON.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "JsonTooDeepError", "json_depth", "loads"]

MAX_JSON_DEPTH = 200
"""Deeper than any JSON ctxlab writes or a tool schema needs, far below the recursion limit."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class JsonTooDeepError(ValueError):
    """JSON nested deeper than the limit; refused before parsing."""


def json_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in ``text``, strings left out (an unterminated
    string counts as text to its end, which can only make the depth larger)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if not brackets:
        return 0
    return max(accumulate(1 if c in "[{" else -1 for c in brackets))


def loads(text: str | bytes, max_depth: int = MAX_JSON_DEPTH, **options: Any) -> Any:
    """``json.loads(text, **options)``, refusing JSON nested deeper than ``max_depth`` with a
    :class:`JsonTooDeepError` (a ``ValueError``) before it is parsed."""
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8")
    # the depth cannot exceed the number of opening brackets, counted at C speed
    if text.count("[") + text.count("{") > max_depth and (depth := json_depth(text)) > max_depth:
        raise JsonTooDeepError(f"JSON nested {depth:,} levels deep (at most {max_depth} are read)")
    return json.loads(text, **options)
