"""Reading the lines of a DeepSeek-Harness JSONL session file: the header line, epoch-ms times,
and the packed chunk rows (``text-chunks``, ``reasoning-chunks``, ``tool-call-chunks``) that
stand for runs of ``assistant/chunk`` events (dsh's ``decodeStorageRecord``); and the field names
and tool schemas of dsh's records beside ctxlab's (camelCase and snake_case, dsh's flat tool and
the OpenAI ``function`` one)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from harness import json_depth
from harness.errors import EventLogError, LogCorruptError

__all__ = [
    "camel",
    "dsh_tool",
    "expand_row",
    "is_header",
    "iso",
    "ms",
    "openai_tool",
    "readable",
    "session_id_of",
    "snake",
    "text_of",
]

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_DELTAS = {"text-chunks": "text-delta", "reasoning-chunks": "reasoning-delta"}


def is_header(line: bytes) -> bool:
    """True for a dsh session header line."""
    try:
        value = json_depth.loads(line.decode("utf-8"))
    except ValueError:
        return line.startswith(b'{"type":"session"')  # a header torn mid-line
    return isinstance(value, dict) and value.get("type") == "session"


def iso(ms: Any) -> str:
    if isinstance(ms, bool) or not isinstance(ms, int):
        raise ValueError(f"time must be whole epoch milliseconds, not {ms!r}")
    return (_EPOCH + timedelta(milliseconds=ms)).isoformat(timespec="milliseconds")[:-6] + "Z"


def ms(stamp: str) -> int:
    """Epoch milliseconds of an ISO-8601 stamp (digits past the microsecond are cut)."""
    stamp = re.sub(r"(\.\d{6})\d+", r"\1", stamp)
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError as exc:
        raise EventLogError(f"event time {stamp!r} is not ISO-8601: dsh needs epoch ms") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def readable(line: bytes) -> bool:
    try:
        json_depth.loads(line.decode("utf-8"))
    except ValueError:
        return False
    return True


def expand_row(where: str, row: dict[str, Any]) -> list[dict[str, Any]]:
    """A packed chunk row as the ``assistant/chunk`` events it stands for (dsh's
    ``decodeStorageRecord``); LogCorruptError for a malformed row."""
    data, kind = row.get("data"), row.get("type")
    seq0, time0 = row.get("seq0"), row.get("time0")
    key = "args" if kind == "tool-call-chunks" else "texts"
    ok = (
        set(row) == {"type", "seq0", "time0", "data"}
        and isinstance(seq0, int)
        and isinstance(time0, int)
        and isinstance(data, Mapping)
        and isinstance(data.get(key), list)
        and bool(data[key])
        and all(isinstance(x, str) for x in data[key])
        and isinstance(data.get("dt"), list)
        and len(data["dt"]) == len(data[key]) - 1
        and all(isinstance(x, int) for x in data["dt"])
    )
    if not ok:
        raise LogCorruptError(f"{where}: malformed {kind} storage row")
    assert isinstance(data, Mapping) and isinstance(seq0, int) and isinstance(time0, int)
    events, time = [], time0
    for index, member in enumerate(data[key]):
        if index:
            time += data["dt"][index - 1]
        chunk = {"turn": data["turn"], "step": data["step"], "chunk": _chunk(kind, data, member)}
        events.append({"type": "assistant/chunk", "seq": seq0 + index, "time": time, "data": chunk})
    return events


def _chunk(kind: Any, data: Mapping[str, Any], member: str) -> dict[str, Any]:
    if kind != "tool-call-chunks":
        return {"type": _DELTAS[str(kind)], "index": data["index"], "text": member}
    chunk: dict[str, Any] = {"type": "tool-call-delta", "index": data["index"], "id": data["id"]}
    if "name" in data:
        chunk["name"] = data["name"]
    chunk["argumentsDelta"] = member
    return chunk


def snake(key: str) -> str:
    """``compactionId`` → ``compaction_id``."""
    return _CAMEL.sub("_", key).lower()


def camel(key: str) -> str:
    """``compaction_id`` → ``compactionId``."""
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)


def text_of(blocks: Any) -> Any:
    """The text of a list of text blocks (a summary's); anything else as it is."""
    if isinstance(blocks, list):
        return "".join(b.get("text", "") for b in blocks if isinstance(b, Mapping))
    return blocks


def dsh_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """dsh's flat ``{name, description, parameters}`` of a tool schema (OpenAI's or flat)."""
    nested = tool.get("function")
    function: Mapping[str, Any] = nested if isinstance(nested, Mapping) else tool
    return {
        "name": function.get("name", ""),
        "description": function.get("description", ""),
        "parameters": function.get("parameters", {}),
    }


def openai_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """The OpenAI ``{type: function, function}`` schema of dsh's flat one."""
    return {"type": "function", "function": dict(tool)}


def session_id_of(path: Path | None) -> str:
    """The session id dsh gives the file at ``path``: its folder's name for a
    ``session.jsonl``, else its stem ("ctxlab" for a log with no file)."""
    if path is None:
        return "ctxlab"
    return path.parent.name if path.stem == "session" and path.parent.name else path.stem
