"""One event of the append-only log, and the rules an event must meet on its own.

An event has a contiguous ``seq`` (its index in the log), a ``type``, a ``time`` and JSON
``data``. Only the three surface types (``user/message``, ``assistant/message``, ``tool/result``)
produce model messages; each of them carries a ``surface_op`` (``"append"`` or
``{"op": "replace", "start": s, "end": e}`` naming the shadowed span by the **event seqs** at its
ends, as DeepSeek-Harness does) and may cite earlier events in
``source_event_seqs``. Any other type carrying either is rejected (DeepSeek-Harness §A1).

The rules that need the current surface (where the seqs sit, shadowed nodes) live in
:mod:`harness.store.eventlog.surface`. Accepted events are deep-frozen: ``data`` and
``surface_op`` are read-only mappings and their lists are tuples, so nothing can rewrite an event
after the fact.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, TypedDict

from harness.errors import SurfaceError
from harness.messages import Message

__all__ = [
    "ROLE_OF_TYPE",
    "SURFACE_TYPES",
    "TYPE_OF_ROLE",
    "Event",
    "FrozenJSON",
    "ReplaceOp",
    "freeze",
    "surface_type",
    "thaw",
]

SURFACE_TYPES = frozenset({"user/message", "assistant/message", "tool/result"})
"""The event types that produce a model message and can be surface nodes."""

ROLE_OF_TYPE: Mapping[str, str] = MappingProxyType(
    {"user/message": "user", "assistant/message": "assistant", "tool/result": "tool"}
)
"""The message role each surface type carries."""

TYPE_OF_ROLE: Mapping[str, str] = MappingProxyType({v: k for k, v in ROLE_OF_TYPE.items()})
"""The surface type for a message role (system messages have none)."""


class ReplaceOp(TypedDict):
    """A replace ``surface_op``: the surface nodes from seq ``start`` through seq ``end``
    (inclusive, looked up on the current surface) give way to the event's message."""

    op: Literal["replace"]
    start: int
    end: int


_REPLACE_KEYS = frozenset({"op", "start", "end"})
_NEEDED_KEYS = frozenset({"seq", "type", "time", "data"})
_RECORD_KEYS = _NEEDED_KEYS | {"surface_op", "source_event_seqs"}


_SCALARS = frozenset({str, int, float, bool, type(None)})


def freeze(value: Any) -> Any:
    """A read-only deep copy: mappings become ``MappingProxyType`` (str keys, as JSON has),
    lists and tuples become tuples."""
    kind = type(value)
    if kind in _SCALARS:  # the common cases first, by exact type: no slow ABC isinstance
        return value
    if kind is dict:
        return MappingProxyType(
            {
                k if type(k) is str else str(k): v if type(v) in _SCALARS else freeze(v)
                for k, v in value.items()
            }
        )
    if kind is list or kind is tuple:
        return tuple(v if type(v) in _SCALARS else freeze(v) for v in value)
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


class FrozenJSON(Mapping[str, Any]):
    """A read-only view of a mapping ``json.loads`` returned, frozen a level at a time as it is
    read: what :func:`freeze` gives, without copying what nobody reads (a reopen parses every
    surface event's message from its raw record and never reads its ``data``). The raw mapping
    is held by this view alone. Equal to any mapping with equal items."""

    __slots__ = ("_frozen", "_raw")

    def __init__(self, raw: dict[str, Any]) -> None:
        self._raw = raw
        self._frozen: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        try:
            return self._frozen[key]
        except KeyError:
            value = self._raw[key]
            frozen = value if type(value) in _SCALARS else freeze(value)
            self._frozen[key] = frozen
            return frozen

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __repr__(self) -> str:
        return f"FrozenJSON({self._raw!r})"

    def thawed(self) -> dict[str, Any]:
        """A plain deep copy of the mapping, ready for ``json.dumps``."""
        return _plain_copy(self._raw)


def _plain_copy(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists and scalars)."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _SCALARS else _plain_copy(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _SCALARS else _plain_copy(v) for v in value]
    return value


def thaw(value: Any) -> Any:
    """The inverse of :func:`freeze`: plain dicts and lists, ready for ``json.dumps`` (what
    :func:`freeze` makes is told by its exact type first, as there: no slow ABC isinstance)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is MappingProxyType or kind is dict:
        return {k: v if type(v) in _SCALARS else thaw(v) for k, v in value.items()}
    if kind is tuple:
        return [v if type(v) in _SCALARS else thaw(v) for v in value]
    if kind is FrozenJSON:
        return value.thawed()
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


def _is_index(value: Any) -> bool:
    if type(value) is int:  # the common case, without the ABC isinstance
        return value >= 0
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True)
class Event:
    """One line of the log. Constructing an event that breaks a rule raises
    :class:`harness.errors.SurfaceError`."""

    seq: int
    """Contiguous from 0; equals the event's index in the log."""
    type: str
    """``session/start``, ``user/message``, ``compaction/start``, ``session/end-seed``, ..."""
    time: str
    """ISO-8601 UTC, from the log's clock."""
    data: Mapping[str, Any]
    """JSON data; for surface types ``{"message": Message.to_record()}``."""
    surface_op: str | Mapping[str, Any] | None = None
    """``"append"`` or a :class:`ReplaceOp` ``{"op": "replace", "start": seq, "end": seq}``
    (held read-only); surface types only. Its shape is checked at construction."""
    source_event_seqs: tuple[int, ...] = ()
    """Earlier events this one derives from; a replace cites every node it shadows."""
    plain_json: dataclasses.InitVar[bool] = dataclasses.field(default=False, kw_only=True)
    """True when ``data`` is known to be what ``json.loads`` returns (dicts, lists and
    scalars only: :meth:`from_json`), so the message is read without looking for read-only
    values to thaw first. Not kept."""

    def __post_init__(self, plain_json: bool) -> None:
        _settle(self, self.data, self.surface_op, self.source_event_seqs, plain_json)

    @property
    def is_surface(self) -> bool:
        """True for the three types that produce a model message."""
        return self.type in SURFACE_TYPES

    @property
    def replace_range(self) -> tuple[int, int] | None:
        """``(start, end)`` of a replace op (event seqs on the surface), else None."""
        op = self.surface_op
        if op is None or type(op) is str:  # the common cases, without the ABC isinstance
            return None
        if isinstance(op, Mapping):
            return op["start"], op["end"]
        return None

    @property
    def message(self) -> Message | None:
        """The message a surface event carries (a fresh copy); None for other types."""
        if not self.is_surface:
            return None
        parsed: Message = self._parsed  # type: ignore[attr-defined]
        return _fresh_copy(parsed)

    def to_record(self) -> dict[str, Any]:
        """The event as plain JSON data; ``surface_op`` and empty sources are left out."""
        record: dict[str, Any] = {
            "seq": self.seq,
            "type": self.type,
            "time": self.time,
            "data": thaw(self.data),
        }
        if self.surface_op is not None:
            record["surface_op"] = thaw(self.surface_op)
        if self.source_event_seqs:
            record["source_event_seqs"] = list(self.source_event_seqs)
        return record

    def to_json(self) -> str:
        """One JSON line (no newline), readable UTF-8 rather than ``\\u`` escapes."""
        return json.dumps(
            self.to_record(), ensure_ascii=False, allow_nan=False, separators=(",", ":")
        )

    @classmethod
    def from_record(cls, record: Any, *, plain_json: bool = False) -> Event:
        """Read :meth:`to_record`'s form; ``ValueError`` for a wrong shape, ``SurfaceError``
        for a broken rule (``plain_json``: see the field)."""
        if not (type(record) is dict or isinstance(record, Mapping)) or not (
            record.keys() >= _NEEDED_KEYS
        ):
            raise ValueError("an event needs seq, type, time and data")
        if not record.keys() <= _RECORD_KEYS:
            raise ValueError(f"unknown event fields {sorted(record.keys() - _RECORD_KEYS)}")
        sources = record.get("source_event_seqs", ())
        if not isinstance(sources, (list, tuple)):
            raise ValueError("source_event_seqs must be a list")
        return cls(
            seq=record["seq"],
            type=record["type"],
            time=record["time"],
            data=record["data"],
            surface_op=record.get("surface_op"),
            source_event_seqs=tuple(sources),
            plain_json=plain_json,
        )

    @classmethod
    def from_json(cls, line: str | bytes) -> Event:
        """Inverse of :meth:`to_json`."""
        record = json.loads(line)
        if type(record) is not dict or not _RECORD_KEYS >= record.keys() >= _NEEDED_KEYS:
            return cls.from_record(record, plain_json=True)  # it raises, saying why
        sources = record.get("source_event_seqs", ())
        if type(sources) is not list and type(sources) is not tuple:
            return cls.from_record(record, plain_json=True)
        # what ``from_record`` does, without the dataclass ``__init__`` (a reopen reads every
        # line through here): the same fields, settled by the same checks
        event = object.__new__(cls)
        _set(event, "seq", record["seq"])
        _set(event, "type", record["type"])
        _set(event, "time", record["time"])
        _settle(event, record["data"], record.get("surface_op"), sources, True)
        return event


_set = object.__setattr__


def _fresh_copy(parsed: Message) -> Message:
    """A copy of an already checked message with metadata of its own: its fields copied as
    they are (``dataclasses.replace`` would run ``__init__`` and its checks again, a seventh of
    a reopen that reads every message) and the metadata deep-copied, since it is mutable."""
    copied: Message = object.__new__(type(parsed))
    fields = copied.__dict__
    fields.update(parsed.__dict__)
    fields["metadata"] = copy.deepcopy(parsed.metadata) if parsed.metadata else {}
    return copied


def _settle(event: Event, data: Any, surface_op: Any, sources: Any, plain_json: bool) -> None:
    """Freeze ``event``'s data, op and sources into it, check its rules and parse its message
    (once: ``message`` hands out copies)."""
    if plain_json and type(data) is dict:  # nobody else holds json.loads's dict
        _set(event, "data", FrozenJSON(data))
    else:
        _set(event, "data", freeze(data))
    _set(event, "surface_op", freeze(surface_op))
    _set(event, "source_event_seqs", tuple(sources))
    _check_event(event)
    if event.type in SURFACE_TYPES:
        _set(event, "_parsed", _check_message(event, data, plain_json))


def _check_event(event: Event) -> None:
    if not _is_index(event.seq):
        raise SurfaceError(f"seq must be a non-negative integer, not {event.seq!r}")
    if not isinstance(event.type, str) or not event.type:
        raise SurfaceError(f"event type must be a non-empty string, not {event.type!r}")
    # freeze made every mapping a MappingProxyType (and nothing else one), or it is a raw
    # json.loads mapping behind its read-only view
    data_kind = type(event.data)
    if not isinstance(event.time, str) or (
        data_kind is not MappingProxyType and data_kind is not FrozenJSON
    ):
        raise SurfaceError(f"event {event.seq}: time must be a string and data a mapping")
    if event.is_surface:
        _check_surface_op(event)
        _check_sources(event)
    elif event.surface_op is not None or event.source_event_seqs:
        raise SurfaceError(
            f"event {event.seq} ({event.type}) is not a surface type; only "
            f"{sorted(SURFACE_TYPES)} may carry surface_op or source_event_seqs"
        )


def _check_surface_op(event: Event) -> None:
    op = event.surface_op
    if op == "append":
        return
    if op is None:
        raise SurfaceError(f"{event.type} event {event.seq} needs a surface_op")
    if not isinstance(op, Mapping) or set(op) != _REPLACE_KEYS or op["op"] != "replace":
        raise SurfaceError(
            f"event {event.seq}: surface_op must be 'append' or exactly "
            f"{{op: 'replace', start, end}}, not {thaw(op)!r}"
        )
    start, end = op["start"], op["end"]
    if not (_is_index(start) and _is_index(end)) or max(start, end) >= event.seq:
        raise SurfaceError(
            f"event {event.seq}: replace start and end must be earlier event seqs, got "
            f"{start!r}..{end!r}"
        )


def _check_sources(event: Event) -> None:
    sources = event.source_event_seqs
    if not sources:
        return
    if all(type(s) is int for s in sources):  # the common case, checked in bulk
        ok = min(sources) >= 0 and max(sources) < event.seq
    else:
        ok = all(_is_index(s) and s < event.seq for s in sources)
    if not ok:
        raise SurfaceError(f"event {event.seq} may cite only earlier seqs, not {list(sources)}")
    if len(set(sources)) != len(sources):
        raise SurfaceError(f"event {event.seq} cites a seq twice: {list(sources)}")


def _check_message(event: Event, raw: Any, plain_json: bool) -> Message:
    record = raw.get("message") if type(raw) is dict or isinstance(raw, Mapping) else None
    if not (type(record) is dict or isinstance(record, Mapping)):
        raise SurfaceError(f"{event.type} event {event.seq} needs data.message")
    try:
        plain = (
            record
            if type(record) is dict and (plain_json or not _has_frozen(record))
            else thaw(record)
        )
        message = Message.from_record(plain)
    except (ValueError, TypeError, AttributeError) as exc:
        raise SurfaceError(f"event {event.seq}: unreadable message: {exc}") from exc
    if message.role != ROLE_OF_TYPE[event.type]:
        raise SurfaceError(
            f"event {event.seq}: a {event.type} must carry a {ROLE_OF_TYPE[event.type]} "
            f"message, not a {message.role} message"
        )
    return message


def _has_frozen(value: Any) -> bool:
    """True when ``value`` holds a read-only mapping or tuple somewhere (thaw it first)."""
    kind = type(value)
    if kind in _SCALARS:  # the common cases by exact type, without isinstance
        return False
    if kind is dict or isinstance(value, dict):
        return any(type(v) not in _SCALARS and _has_frozen(v) for v in value.values())
    if kind is list or isinstance(value, list):
        return any(type(v) not in _SCALARS and _has_frozen(v) for v in value)
    return isinstance(value, (MappingProxyType, tuple))


def surface_type(message: Message) -> str:
    """The surface event type for ``message``; SurfaceError for a system message."""
    kind = TYPE_OF_ROLE.get(message.role)
    if kind is None:
        raise SurfaceError(f"{message.role} messages are not surface nodes")
    return kind
