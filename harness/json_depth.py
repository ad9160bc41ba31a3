"""JSON read with a bound on nesting depth, checked before the parser runs.

``json.loads`` recurses once per level: 200,000 nested ``[`` in a tool call's arguments, a reply
or a file raise ``RecursionError`` (or, in a thread with a small stack, worse) from deep inside
the library. :func:`loads` measures the depth first, over the structural characters outside
strings, and refuses anything deeper than :data:`MAX_JSON_DEPTH` with a ``ValueError`` that says
so, the same error every caller already handles for malformed JSON.

The depth is measured on the UTF-8 bytes with C-level byte methods: escape pairs removed, every
byte but ``"[]{}`` dropped, and what lies between quote pairs left out. Stripping the strings
with a pattern cost three times the parse itself on recorded cassettes (issue 48); this costs
about half of that.
"""

from __future__ import annotations

import json
from itertools import accumulate
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "JsonTooDeepError", "json_depth", "loads"]

MAX_JSON_DEPTH = 200
"""Deeper than any JSON ctxlab writes or a tool schema needs, far below the recursion limit."""

_NOT_MARKS = bytes(b for b in range(256) if b not in b'"[]{}')
"""Every byte but a quote and a bracket (UTF-8 never uses these bytes inside a character)."""


class JsonTooDeepError(ValueError):
    """JSON nested deeper than the limit; refused before parsing."""


def json_depth(text: str | bytes) -> int:
    """The deepest nesting of ``[`` and ``{`` in ``text``, strings left out.

    Exact for JSON; for other text, never less than the depth the parser reaches before its
    first error: a backslash outside a string (an error) may pair with what follows it, and
    what follows an unterminated string is left out (the parser stops at either)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    if b"\\" in data:  # an escape pair: \\ first, so that \\" keeps its closing quote
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    marks = data.translate(None, _NOT_MARKS)
    if b'"' in marks:
        marks = b"".join(marks.split(b'"')[::2])  # the odd pieces lie inside strings
    if not marks:
        return 0
    return max(0, max(accumulate(1 if c in b"[{" else -1 for c in marks)))


def loads(text: str | bytes, max_depth: int = MAX_JSON_DEPTH, **options: Any) -> Any:
    """``json.loads(text, **options)``, refusing JSON nested deeper than ``max_depth`` with a
    :class:`JsonTooDeepError` (a ``ValueError``) before it is parsed."""
    raw = text
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8")
    # the depth cannot exceed the number of opening brackets, counted at C speed
    if text.count("[") + text.count("{") > max_depth and (depth := json_depth(raw)) > max_depth:
        raise JsonTooDeepError(f"JSON nested {depth:,} levels deep (at most {max_depth} are read)")
    return json.loads(text, **options)
