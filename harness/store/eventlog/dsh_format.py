"""DeepSeek-Harness's JSONL session file as an event-log format (``EventLog(format="dsh")``).

**The file** (dsh's ``session-persistence-jsonl``, version 0): a header line ``{"type":
"session", "version": 0, "id", "createdAt", "delegationDepth", ...}``, then a line per event
``{type, seq, time, data, surfaceOp?, sourceEventSeqs?, ignorable?}`` (``time`` in epoch ms),
or a packed *chunk row* (``text-chunks`` ...) standing for a run of ``assistant/chunk`` events.

**Reading** (:meth:`DshCodec.scan`): rows are expanded, every event becomes an
:class:`~harness.store.eventlog.events.Event` (``time`` as ISO-8601 UTC to the millisecond), and
each surface event's message is read from its content blocks
(:mod:`harness.store.dsh.messages`) into ``data["message"]``, the dsh data kept verbatim in
``data["dsh"]``; compaction events get ctxlab's snake_case fields (``compaction_id``,
``shadowed_seqs``, a text ``summary``) beside it; ``request/header`` its ``messages`` and
``tools``. Nothing is dropped: a content block ctxlab cannot read is a
:class:`~harness.errors.LogCorruptError` naming the file, line, event seq and type, never an
empty message; so is what dsh's reader refuses (:mod:`harness.store.dsh.checks`). Crash damage
after the last committed ``turn/end`` is set apart, as dsh's ``scanLog`` does (:meth:`scan`).

**Writing** (:meth:`DshCodec.encode`): what ctxlab appends is written as dsh writes it —
content blocks, ``source`` (a checkpoint's is ``{kind: 'plugin', plugin: 'compact',
compactionId}``), ``turn`` / ``step``, camelCase compaction fields, a ``request/header`` of
``{header: {config: {provider, model}, system, tools}, reason}``, epoch-ms ``time``; an event
type dsh does not know (``compaction/undo``) is marked ``ignorable``. What dsh has no field for
(message metadata, ctxlab's log-only fields, the exact header messages) rides in a ``ctxlab``
key, which dsh ignores and which makes reading back give exactly the event written; a pruned
tool result keeps all but its original's content (:mod:`harness.store.dsh.results`). No
``assistant/chunk`` is written (ctxlab does not stream).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness import json_depth
from harness.errors import ContentFormatError, LogCorruptError, SurfaceError
from harness.messages import Message
from harness.store.dsh.checks import Damaged, read_header, surface_fields_problem
from harness.store.dsh.lines import (
    camel,
    dsh_tool,
    expand_row,
    is_header,
    iso,
    ms,
    openai_tool,
    session_id_of,
    snake,
    text_of,
)
from harness.store.dsh.messages import message_of, read_message, write_message
from harness.store.dsh.results import StrideReader, SurfaceResults
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


class DshCodec:
    """Reads and writes dsh's JSONL session file (see the module docstring). One per log: it
    remembers the header, the open compaction (a checkpoint's source names it), the model
    target of the latest ``request/header`` and the turn and step counters."""

    format: LogFormat = "dsh"

    def __init__(self, path: Path | None = None) -> None:
        self.header: dict[str, Any] | None = None
        """The file's session header (read, or written with the first event)."""
        self.session_id = session_id_of(path)
        self.provider, self.model = "deepseek", "deepseek-v4-flash"
        """The model ``assistant/message`` sources and ``request/header`` name until a logged
        header says otherwise (set them to the model the agent talks to)."""
        self._compaction: str | None = None
        self._open_turn: int | None = None
        self._turn = 0
        self._step = 0
        self._headers = 0
        self._results = SurfaceResults()  # what a rewrite of a result must keep

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
            self._track(event.type, data["dsh"], event.seq)
            self._follow_results(event, data["dsh"])
            return data["dsh"]
        if event.is_surface:
            out = self._surface_data(event, data)
        else:
            out = self._log_data(event.type, data)
        self._track(event.type, out, event.seq)
        self._follow_results(event, out)
        return out

    def _surface_data(self, event: Event, data: dict[str, Any]) -> dict[str, Any]:
        message = event.message
        assert message is not None
        rewritten = self._rewritten_result(event, message)
        if rewritten is not None:
            return rewritten
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

    def _rewritten_result(self, event: Event, message: Message) -> dict[str, Any] | None:
        """A pruned ``tool/result`` as dsh writes it (:mod:`harness.store.dsh.results`)."""
        op = event.replace_range
        if event.type != "tool/result" or op is None or op[0] != op[1]:
            return None
        return self._results.rewrite(op[0], message.content)

    def _log_data(self, type: str, data: dict[str, Any]) -> dict[str, Any]:
        if type == "request/header":
            return self._header_data(data)
        if type == "session/end-seed":
            return {_STASH: data} if data else {}
        if not type.startswith("compaction/"):
            return data
        out: dict[str, Any] = {camel(k): v for k, v in data.items() if v is not None}
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
        tools = [dsh_tool(t) for t in data.get("tools", ())]
        if tools:
            header["tools"] = tools
        reason = "initial" if self._headers == 0 else "change"
        return {"header": header, "reason": reason, _STASH: data}

    def _track(self, type: str, data: Any, seq: int) -> None:
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

    def _follow_results(self, event: Event, data: Any) -> None:
        shadowed = event.source_event_seqs if event.replace_range else ()
        self._results.follow(event.type, event.seq, shadowed, data)

    def state(self) -> dict[str, Any]:
        """The header and what :meth:`_track` followed, for a snapshot (the sidecar)."""
        return {
            "header": self.header, "session_id": self.session_id, "provider": self.provider,
            "model": self.model, "compaction": self._compaction, "open_turn": self._open_turn,
            "turn": self._turn, "step": self._step, "headers": self._headers,
            "results": self._results.entries(),
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
        self._results = SurfaceResults(state.get("results", ()))

    def settle(self, read: StrideReader) -> None:
        """The events so far are in the file: surface results are read back from it."""
        self._results.settle(read)

    # --- reading --------------------------------------------------------------------------

    def scan(self, path: Path, raw: bytes, first_seq: int, at_start: bool) -> Scan:
        """dsh's ``scanLog``: the contiguous prefix of complete, readable lines is kept. The
        first damaged line (one dsh would not decode, or a seq gap: a packed row's whole run
        with it) ends the prefix, and it and every line after it are set apart as a crash
        tail, unless a later line that decodes holds a ``turn/end``: damage before a committed
        turn end is corruption (LogCorruptError naming the file and line), as in dsh. A torn
        last line (no newline) is a crash tail too."""
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
        start = (number if at_start else None), at
        kept, damage = self._prefix(path, lines, first_seq, start, scan)
        if damage:
            scan.recovered.append(f"dropped the crash tail after the last turn/end ({damage})")
        elif tail:
            scan.recovered.append(f"dropped a torn last line ({len(tail)} bytes, no newline)")
        scan.good_bytes = at + kept
        scan.torn = scan.good_bytes < len(raw)
        return scan

    def _prefix(
        self, path: Path, lines: list[bytes], seq: int, start: tuple[int | None, int], scan: Scan
    ) -> tuple[int, str]:
        """Append the contiguous prefix's events (their marks and last lines) to ``scan``;
        returns its bytes and where and why it ended ("" when every line was kept). ``start``:
        the line number before ``lines`` (None when unknown: the events' seqs name them) and
        the offset they start at."""
        (number, at), kept, damage, marks = start, 0, "", Marks()
        for line in lines:
            where = f"{path} (event {seq})" if number is None else f"{path}:{number + 1}"
            number = None if number is None else number + 1
            try:
                decoded = self._decode_line(where, line)
            except Damaged as exc:
                damage = damage or f"{where}: {exc}"
                continue
            gap = next((e.seq for i, (e, _) in enumerate(decoded) if e.seq != seq + i), None)
            if not damage and gap is not None:
                damage = f"{where}: seq gap (event {gap} where {seq} or later was due)"
            if damage and any(event.type == "turn/end" for event, _ in decoded):
                raise LogCorruptError(
                    f"{damage}, before the committed turn/end at {where}: the committed part "
                    "of the session is damaged"
                )
            if damage:
                continue
            marks.add(seq, at + kept)
            for event, data in decoded:
                self._track(event.type, data, event.seq)
                self._follow_results(event, data)
                scan.events.append(event)
                scan.last_lines[event.type] = (seq, line)
            seq += len(decoded)
            kept += len(line) + 1
        scan.marks = marks.tuples()
        return kept, damage

    def _read_header(self, path: Path, line: bytes) -> None:
        self.header = read_header(path, line, DSH_FORMAT_VERSION)
        if isinstance(self.header.get("id"), str):
            self.session_id = self.header["id"]

    def _decode_line(self, where: str, line: bytes) -> list[tuple[Event, Any]]:
        """The events of one line, each with its dsh data; :class:`Damaged` for a line dsh's
        ``decodeStorageRecord`` refuses (not JSON, not an object, a malformed row or
        envelope), LogCorruptError for one dsh reads and ctxlab cannot."""
        try:
            record = json_depth.loads(line)  # depth bounded first
        except (ValueError, RecursionError) as exc:
            raise Damaged(f"unreadable line: {exc}") from exc
        if not isinstance(record, dict):
            raise Damaged("a line that is not a JSON object")
        if record.get("type") not in _ROWS:
            return [self._decode(where, record)]
        try:
            rows = expand_row(where, record)
        except LogCorruptError as exc:
            raise Damaged(f"malformed {record.get('type')} storage row") from exc
        return [self._decode(where, row) for row in rows]

    def _decode(self, where: str, record: dict[str, Any]) -> tuple[Event, Any]:
        if unknown := set(record) - _ENVELOPE:
            raise Damaged(f"unknown event fields {sorted(unknown)}")
        type, seq, data = record.get("type"), record.get("seq"), record.get("data")
        name = f"event {seq} ({type})"
        if not isinstance(data, Mapping):
            raise Damaged(f"{name}: data must be an object")
        if problem := surface_fields_problem(record, type in SURFACE_TYPES):
            raise LogCorruptError(f"{where}: {name}: {problem}; dsh refuses the surface")
        if problem := self._results.problem(record):
            raise LogCorruptError(f"{where}: {name}: {problem}; dsh refuses the surface")
        try:
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
        return event, data

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
            tools = [openai_tool(t) for t in header.get("tools") or ()]
            return {"messages": messages, "tools": tools, "dsh": dict(data)}
        if type.startswith("compaction/"):
            out = {snake(k): text_of(v) if k in ("summary", "rawOutput") else v
                   for k, v in data.items()}  # fmt: skip
            return out | {"dsh": dict(data)}
        return dict(data)
