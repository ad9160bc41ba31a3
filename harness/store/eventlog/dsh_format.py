"""DeepSeek-Harness's JSONL session file as an event-log format (``EventLog(format="dsh")``).

**The file** (dsh's ``session-persistence-jsonl``, format version 0): a header line
``{"type": "session", "version": 0, "id", "createdAt", "delegationDepth", ...}``, then one
line per event ``{type, seq, time, data, surfaceOp?, sourceEventSeqs?, ignorable?}`` with
``time`` in epoch milliseconds, or one packed *chunk row* (``text-chunks``,
``reasoning-chunks``, ``tool-call-chunks``) standing for a run of ``assistant/chunk`` events.

**Reading** (:meth:`DshCodec.scan`): rows are expanded, every event becomes an
:class:`~harness.store.eventlog.events.Event` (``time`` as ISO-8601 UTC to the millisecond), and
each surface event's message is read from its content blocks
(:mod:`harness.store.dsh.messages`) into ``data["message"]``, the dsh data kept verbatim in
``data["dsh"]``; compaction events get ctxlab's snake_case fields (``compaction_id``,
``shadowed_seqs``, a text ``summary``) beside it; ``request/header`` its ``messages`` and
``tools``. Nothing is dropped: a content block ctxlab cannot read is a
:class:`~harness.errors.LogCorruptError` naming the file, line, event seq and type, never an
empty message. A torn last line is set apart as in ctxlab's own format.

**Writing** (:meth:`DshCodec.encode`): what ctxlab appends is written as dsh writes it —
content blocks, ``source`` (a checkpoint's is ``{kind: 'plugin', plugin: 'compact',
compactionId}``), ``turn`` / ``step``, camelCase compaction fields, a ``request/header`` of
``{header: {config: {provider, model}, system, tools}, reason}``, epoch-ms ``time``; an event
type dsh does not know (``compaction/undo``) is marked ``ignorable``. What dsh has no field for
(message metadata, ctxlab's log-only fields, the exact header messages) rides in a ``ctxlab``
key, which dsh ignores and which makes reading back give exactly the event written. ctxlab
writes no ``turn/*`` / ``step/*`` events and no ``assistant/chunk`` (it does not stream).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness import json_depth
from harness.errors import ContentFormatError, LogCorruptError, SurfaceError
from harness.messages import Message
from harness.store.dsh.lines import expand_row, is_header, iso, ms, readable
from harness.store.dsh.messages import message_of, read_message, write_message
from harness.store.eventlog.events import SURFACE_TYPES, Event, thaw
from harness.store.eventlog.formats import LogFormat
from harness.store.eventlog.marks import Marks
from harness.store.eventlog.scan import Scan

__all__ = ["DSH_FORMAT_VERSION", "KNOWN_TYPES", "DshCodec", "is_header"]

DSH_FORMAT_VERSION = 0
"""dsh's ``SESSION_FORMAT_VERSION`` at tag dsh-v0.1.1-rc.2; any other is refused."""

KNOWN_TYPES = frozenset(
    {
        "assistant/chunk", "assistant/message", "compaction/end", "compaction/prune",
        "compaction/start", "compaction/summary", "request/context", "request/header",
        "session/end-seed", "step/end", "step/start", "tool/call", "tool/result", "turn/end",
        "turn/start", "user/message",
    }
)  # fmt: skip
"""The dsh event types ctxlab writes or folds; any other type ctxlab writes is ``ignorable``
(dsh refuses an unknown type without that marker)."""

_ENVELOPE = frozenset({"type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs", "ignorable"})
_ROWS = ("text-chunks", "reasoning-chunks", "tool-call-chunks")
_STASH = "ctxlab"
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _snake(key: str) -> str:
    return _CAMEL.sub("_", key).lower()


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)


def _text_of(blocks: Any) -> Any:
    if isinstance(blocks, list):
        return "".join(b.get("text", "") for b in blocks if isinstance(b, Mapping))
    return blocks


class DshCodec:
    """Reads and writes dsh's JSONL session file (see the module docstring). One per log: it
    remembers the header, the open compaction (a checkpoint's source names it), the model
    target of the latest ``request/header`` and the turn and step counters."""

    format: LogFormat = "dsh"

    def __init__(self, path: Path | None = None) -> None:
        self.header: dict[str, Any] | None = None
        """The file's session header (read, or written with the first event)."""
        self.session_id = _session_id(path)
        self.provider, self.model = "deepseek", "deepseek-v4-flash"
        """The model ``assistant/message`` sources and ``request/header`` name until a logged
        header says otherwise (set them to the model the agent talks to)."""
        self._compaction: str | None = None
        self._open_turn: int | None = None
        self._turn = 0
        self._step = 0
        self._headers = 0

    # --- writing --------------------------------------------------------------------------

    def preamble(self, first: Event) -> str:
        if self.header is None:
            self.header = {
                "type": "session",
                "version": DSH_FORMAT_VERSION,
                "id": self.session_id,
                "createdAt": ms(first.time),
                "delegationDepth": 0,
            }
        return json.dumps(self.header, ensure_ascii=False, separators=(",", ":")) + "\n"

    def encode(self, event: Event) -> str:
        record: dict[str, Any] = {
            "type": event.type,
            "seq": event.seq,
            "time": ms(event.time),
            "data": self._data_of(event),
        }
        if event.surface_op is not None:
            record["surfaceOp"] = thaw(event.surface_op)
        if event.source_event_seqs:
            record["sourceEventSeqs"] = list(event.source_event_seqs)
        if event.type not in KNOWN_TYPES and "dsh" not in event.data:
            record["ignorable"] = True
        return json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":"))

    def _data_of(self, event: Event) -> Any:
        data = thaw(event.data)
        if "dsh" in data:  # read from a dsh file: written back verbatim
            self._track(event.type, data["dsh"])
            return data["dsh"]
        if event.is_surface:
            return self._surface_data(event, data)
        out = self._log_data(event.type, data)
        self._track(event.type, out)
        return out

    def _surface_data(self, event: Event, data: dict[str, Any]) -> dict[str, Any]:
        message = event.message
        assert message is not None
        wire = write_message(
            message, provider=self.provider, model=self.model, compaction_id=self._compaction
        )
        extra = {k: v for k, v in data.items() if k != "message"}
        stash: dict[str, Any] = {"data": extra} if extra else {}  # {} too: ctxlab wrote it
        if message.metadata:
            stash["metadata"] = dict(message.metadata)
        if message.name is not None and read_message(event.type, wire).name != message.name:
            stash["name"] = message.name
        if event.type == "user/message":
            return wire | {_STASH: stash}
        out = {"turn": max(self._turn, 1), "step": max(self._step, 1), "message": wire}
        return out | {_STASH: stash}

    def _log_data(self, type: str, data: dict[str, Any]) -> dict[str, Any]:
        if type == "request/header":
            return self._header_data(data)
        if type == "session/end-seed":
            return {_STASH: data} if data else {}
        if not type.startswith("compaction/"):
            return data
        out: dict[str, Any] = {_camel(k): v for k, v in data.items() if v is not None}
        for key in ("summary", "rawOutput"):
            if isinstance(out.get(key), str):
                out[key] = [{"type": "text", "text": out[key]}]
        if type in ("compaction/start", "compaction/end"):
            out["turn"] = self._open_turn  # the owning turn; None for a standalone compaction
        out.pop("usage", None)  # ctxlab's usage is not dsh's TokenUsage; kept in the stash
        return out | {_STASH: data}

    def _header_data(self, data: dict[str, Any]) -> dict[str, Any]:
        messages = [Message.from_record(m) for m in data.get("messages", ())]
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        header: dict[str, Any] = {"config": {"provider": self.provider, "model": self.model}}
        if system:
            header["system"] = system
        tools = [_dsh_tool(t) for t in data.get("tools", ())]
        if tools:
            header["tools"] = tools
        reason = "initial" if self._headers == 0 else "change"
        return {"header": header, "reason": reason, _STASH: data}

    def _track(self, type: str, data: Any) -> None:
        """Follow what the log holds: the open compaction, the model, the turn counters."""
        if not isinstance(data, Mapping):
            return
        if type == "compaction/start":
            self._compaction = str(data.get("compactionId") or data.get("compaction_id"))
        elif type == "compaction/end":
            self._compaction = None
        elif type == "request/header":
            self._headers += 1
            config = (data.get("header") or {}).get("config") or {}
            if config.get("provider") and config.get("model"):
                self.provider, self.model = str(config["provider"]), str(config["model"])
        elif type == "turn/start" and isinstance(data.get("turn"), int):
            self._turn, self._step, self._open_turn = data["turn"], 0, data["turn"]
        elif type == "turn/end":
            self._open_turn = None
        elif type == "step/start" and isinstance(data.get("step"), int):
            self._step = data["step"]
        elif type in ("assistant/message", "tool/result") and isinstance(data.get("turn"), int):
            self._turn = max(self._turn, data["turn"])
            if type == "assistant/message" and isinstance(data.get("step"), int):
                self._step = data["step"]

    def state(self) -> dict[str, Any]:
        """The header and what :meth:`_track` followed, for a snapshot (the sidecar)."""
        return {
            "header": self.header, "session_id": self.session_id, "provider": self.provider,
            "model": self.model, "compaction": self._compaction, "open_turn": self._open_turn,
            "turn": self._turn, "step": self._step, "headers": self._headers,
        }  # fmt: skip

    def restore(self, state: Mapping[str, Any]) -> None:
        """Take up :meth:`state`; KeyError or TypeError when it is not one."""
        header = state["header"]
        if not isinstance(header, dict) or header.get("version") != DSH_FORMAT_VERSION:
            raise TypeError("no dsh session header")
        self.header, self.session_id = header, str(state["session_id"])
        self.provider, self.model = str(state["provider"]), str(state["model"])
        compaction, open_turn = state["compaction"], state["open_turn"]
        self._compaction = None if compaction is None else str(compaction)
        self._open_turn = None if open_turn is None else int(open_turn)
        self._turn, self._step = int(state["turn"]), int(state["step"])
        self._headers = int(state["headers"])

    # --- reading --------------------------------------------------------------------------

    def scan(self, path: Path, raw: bytes, first_seq: int, at_start: bool) -> Scan:
        lines = raw.split(b"\n")
        tail = lines.pop()
        scan = Scan()
        number = 0  # line number in the file, where known (from byte 0)
        at = 0  # where the line starts, from the start of raw
        if at_start:
            if not lines:  # only a header being written: nothing yet
                scan.good_bytes, scan.torn = 0, bool(tail)
                return scan
            header = lines.pop(0)
            self._read_header(path, header)
            number, at = 1, len(header) + 1
        if tail:
            scan.recovered.append(f"dropped a torn last line ({len(tail)} bytes, no newline)")
        elif lines and not readable(lines[-1]):
            dropped = lines.pop()
            tail = dropped + b"\n"
            scan.recovered.append(f"dropped an unreadable last line ({len(dropped)} bytes)")
        seq = first_seq
        marks = Marks()
        for line in lines:
            number += 1
            where = f"{path}:{number}" if at_start else f"{path} (event {seq})"
            marks.add(seq, at)
            at += len(line) + 1
            first = seq
            for event in self._decode_line(where, line):
                if event.seq != seq:
                    raise LogCorruptError(f"{where}: event seq {event.seq}, expected {seq}")
                scan.events.append(event)
                scan.last_lines[event.type] = (first, line)
                seq += 1
        scan.marks = marks.tuples()
        scan.good_bytes = len(raw) - len(tail)
        scan.torn = bool(tail)
        return scan

    def _read_header(self, path: Path, line: bytes) -> None:
        try:
            header = json_depth.loads(line.decode("utf-8"))  # depth bounded first
        except ValueError as exc:
            raise LogCorruptError(f"{path}:1: the dsh session header is not JSON") from exc
        if not isinstance(header, dict) or header.get("type") != "session":
            raise LogCorruptError(f"{path}:1: the first line is not a dsh session header")
        if header.get("version") != DSH_FORMAT_VERSION:
            raise LogCorruptError(
                f"{path}:1: dsh session format version {header.get('version')!r}; ctxlab reads "
                f"version {DSH_FORMAT_VERSION} only"
            )
        self.header = header
        if isinstance(header.get("id"), str):
            self.session_id = header["id"]

    def _decode_line(self, where: str, line: bytes) -> list[Event]:
        try:
            record = json_depth.loads(line.decode("utf-8"))  # depth bounded first
        except ValueError as exc:
            raise LogCorruptError(f"{where}: unreadable line: {exc}") from exc
        if not isinstance(record, dict):
            raise LogCorruptError(f"{where}: a line that is not a JSON object")
        if record.get("type") in _ROWS:
            return [self._decode(where, r) for r in expand_row(where, record)]
        return [self._decode(where, record)]

    def _decode(self, where: str, record: dict[str, Any]) -> Event:
        if unknown := set(record) - _ENVELOPE:
            raise LogCorruptError(f"{where}: unknown event fields {sorted(unknown)}")
        type, seq, data = record.get("type"), record.get("seq"), record.get("data")
        name = f"event {seq} ({type})"
        try:
            if not isinstance(data, Mapping):
                raise ValueError("data must be an object")
            ours = self._ours(str(type), data)
            event = Event(
                seq,  # type: ignore[arg-type]  # checked by Event
                type,  # type: ignore[arg-type]
                iso(record.get("time")),
                ours,
                record.get("surfaceOp"),
                tuple(record.get("sourceEventSeqs") or ()),
            )
        except ContentFormatError as exc:
            raise LogCorruptError(f"{where}: {name}: content ctxlab cannot read: {exc}") from exc
        except (ValueError, TypeError, SurfaceError) as exc:
            raise LogCorruptError(f"{where}: {name}: {exc}") from exc
        self._track(event.type, data)
        return event

    def _ours(self, type: str, data: Mapping[str, Any]) -> dict[str, Any]:
        """ctxlab's data for a dsh event's data (see the module docstring)."""
        stash = data.get(_STASH)
        if type in SURFACE_TYPES:
            message = read_message(type, message_of(type, data))
            if isinstance(stash, Mapping):  # written by ctxlab: exactly what it wrote
                extra = dict(stash.get("data") or {})
                record = message.to_record()
                if stash.get("name") is not None:
                    record["name"] = stash["name"]
                if stash.get("metadata"):
                    record["metadata"] = dict(stash["metadata"])
                return {"message": record, **extra}
            return {"message": message.to_record(), "dsh": dict(data)}
        if isinstance(stash, Mapping):
            return dict(stash)
        if type == "request/header":
            found = data.get("header")
            header: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
            system = header.get("system")
            messages = [Message.system(system).to_record()] if system else []
            tools = [_openai_tool(t) for t in header.get("tools") or ()]
            return {"messages": messages, "tools": tools, "dsh": dict(data)}
        if type.startswith("compaction/"):
            out = {_snake(k): _text_of(v) if k in ("summary", "rawOutput") else v
                   for k, v in data.items()}  # fmt: skip
            return out | {"dsh": dict(data)}
        return dict(data)


def _session_id(path: Path | None) -> str:
    if path is None:
        return "ctxlab"
    return path.parent.name if path.stem == "session" and path.parent.name else path.stem


def _dsh_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    nested = tool.get("function")
    function: Mapping[str, Any] = nested if isinstance(nested, Mapping) else tool
    return {
        "name": function.get("name", ""),
        "description": function.get("description", ""),
        "parameters": function.get("parameters", {}),
    }


def _openai_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": dict(tool)}
