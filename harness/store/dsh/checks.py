"""What DeepSeek-Harness's reader refuses in a session file that ctxlab's own event checks do
not see: a session header its ``isHeaderLine`` rejects, surface fields its fold rejects once an
event is read (an explicit empty ``sourceEventSeqs``, the fields on a non-surface event), and a
tool-result rewrite that changes more than its content (``assertToolResultRewrite``). Each
check returns what is wrong in words ("" when nothing is), for the reader's error naming the
file and line; :func:`read_header` raises that error for the header line."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness import json_depth
from harness.errors import LogCorruptError

__all__ = [
    "Damaged",
    "header_problem",
    "int_or_negative_zero",
    "read_header",
    "rewrite_problem",
    "surface_fields_problem",
    "without_content",
]

_MAX_SAFE = 2**53 - 1  # JavaScript's Number.MAX_SAFE_INTEGER


def _count(value: Any) -> bool:
    """A JSON number dsh takes as a count: a safe non-negative integer, never ``-0``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and (not value.is_integer() or math.copysign(1, value) < 0):
        return False
    return 0 <= value <= _MAX_SAFE


def surface_fields_problem(record: Mapping[str, Any], surface: bool) -> str:
    """What dsh's fold refuses in an event's ``surfaceOp`` / ``sourceEventSeqs`` fields that
    ctxlab's event cannot see once read ("" for nothing): a field present (even ``null`` or
    ``[]``) on a type that is not a surface type, a sources list that is not a list, or an
    empty one on anything but an ``assistant/message``."""
    kind = record.get("type")
    for key in ("surfaceOp", "sourceEventSeqs"):
        if key in record and not surface:
            return f"a {kind} event is not a surface event and cannot carry {key}"
    if "surfaceOp" in record and record["surfaceOp"] is None:
        return "surfaceOp is null"
    if "sourceEventSeqs" not in record:
        return ""
    sources = record["sourceEventSeqs"]
    if not isinstance(sources, list):
        return f"sourceEventSeqs must be a list, not {sources!r}"
    if not sources and kind != "assistant/message":
        return "sourceEventSeqs must not be empty except on an assistant/message"
    return ""


def without_content(data: Any) -> Any:
    """A tool/result's dsh data with its result block's content blanked (what a rewrite must
    keep); the data itself when it has no such block."""
    if not isinstance(data, Mapping) or not isinstance(data.get("message"), Mapping):
        return data
    blocks = data["message"].get("content")
    if not isinstance(blocks, list) or not blocks or not isinstance(blocks[0], Mapping):
        return data
    first = dict(blocks[0]) | {"content": None}
    message = dict(data["message"]) | {"content": [first, *blocks[1:]]}
    return dict(data) | {"message": message}


def int_or_negative_zero(text: str) -> int | float:
    """``-0`` kept apart from ``0`` (JSON's ``-0`` is JavaScript's negative zero, which dsh's
    header check refuses); every other integer as Python reads it."""
    return -0.0 if text == "-0" else int(text)


def header_problem(header: Mapping[str, Any]) -> str:
    """What makes a version-0 session header one dsh's reader refuses ("" when none): its
    ``isHeaderLine`` and ``fromHeaderLine`` checks."""
    if not isinstance(header.get("id"), str):
        return "has no string id"
    if not _count(header.get("createdAt")):
        return f"has createdAt {header.get('createdAt')!r}, not whole non-negative epoch ms"
    if not _count(header.get("delegationDepth")):
        return f"has delegationDepth {header.get('delegationDepth')!r}, not a whole count"
    if header.get("origin", "subagent") != "subagent":
        return f"has origin {header.get('origin')!r} (only 'subagent' is known)"
    if not isinstance(header.get("agentPreset", ""), str):
        return f"has agentPreset {header.get('agentPreset')!r}, not a string"
    if "sandboxMode" in header or "approvalPolicy" in header:
        return "uses the retired policy baseline fields (sandboxMode, approvalPolicy)"
    return ""


class Damaged(Exception):
    """A line dsh's reader would not decode: crash damage when no committed turn follows."""


def rewrite_problem(results: Mapping[int, Any], record: Mapping[str, Any]) -> str:
    """dsh's ``assertToolResultRewrite``: a ``tool/result`` replacing one earlier result (its
    dsh data in ``results`` by seq) may change its result block's content only ("" when it
    does, or when it replaces no known result or a span: the fold refuses those itself)."""
    op = record.get("surfaceOp")
    if record.get("type") != "tool/result" or not isinstance(op, Mapping):
        return ""
    original = results.get(op.get("start"))  # type: ignore[arg-type]
    if op.get("start") != op.get("end") or original is None:
        return ""
    if without_content(original) == without_content(record["data"]):
        return ""
    return (
        f"replacing tool/result {op.get('start')} changes more than its content (the message "
        "id, turn, step, call id, isError or meta)"
    )


def read_header(path: Path, line: bytes, version: int) -> dict[str, Any]:
    """The session header on the first line of the dsh file at ``path``; LogCorruptError
    naming ``path:1`` for one that is not JSON, not a header, of another format ``version``, or
    one dsh's reader refuses (:func:`header_problem`)."""
    try:
        header = json_depth.loads(line, parse_int=int_or_negative_zero)  # depth bounded
    except ValueError as exc:
        raise LogCorruptError(f"{path}:1: the dsh session header is not JSON") from exc
    if not isinstance(header, dict) or header.get("type") != "session":
        raise LogCorruptError(f"{path}:1: the first line is not a dsh session header")
    if header.get("version") != version:
        raise LogCorruptError(
            f"{path}:1: dsh session format version {header.get('version')!r}; ctxlab reads "
            f"version {version} only"
        )
    if problem := header_problem(header):
        raise LogCorruptError(f"{path}:1: the dsh session header {problem}; dsh refuses it")
    return header
