"""The shortcuts a reopen takes must read exactly what the general code reads.

* :meth:`Event.from_json` builds an event without the dataclass ``__init__``: on any record,
  valid or not, it gives the event :meth:`Event.from_record` gives, or the same error;
* :func:`message_of_line` reads a surface event's message from its line without the event: on
  any record, the message ``parse_line`` gives, or the same error;
* :meth:`Message.from_wire` reads a text (or null) ``content`` without the block reader: the
  same message as the block reader's on a one-text-block content;
* :meth:`SafeRoot.parts` splits by hand: the components ``PurePosixPath`` gives, and the same
  refusals;
* :meth:`SafeRoot.read_bytes` reads with ``pread``: the bytes from ``offset`` to the end, the
  same errors as the buffered reader (a folder, a missing file, a symlink).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.errors import LogCorruptError, PathEscapeError, SurfaceError
from harness.fs.root import SafeRoot
from harness.messages import Message
from harness.store.eventlog import Event
from harness.store.eventlog.events import FrozenJSON, _has_frozen, thaw
from harness.store.eventlog.line_messages import message_of_line
from harness.store.eventlog.scan import parse_line

_TEXT = st.text(max_size=12)
_MESSAGES = st.one_of(
    st.builds(lambda t: {"role": "user", "content": t}, _TEXT),
    st.builds(lambda t: {"role": "assistant", "content": t}, _TEXT),
    st.builds(
        lambda i: {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": i, "type": "function", "function": {"name": "f"}}],
        },
        _TEXT,
    ),
    st.builds(lambda t, i: {"role": "tool", "content": t, "tool_call_id": i}, _TEXT, _TEXT),
    st.builds(lambda t: {"role": "system", "content": t}, _TEXT),  # no surface type takes it
    st.just({"role": "user"}),
    st.just({"role": "robot", "content": "x"}),
)
_OPS = st.one_of(
    st.none(),
    st.just("append"),
    st.just("splice"),
    st.builds(
        lambda a, b: {"op": "replace", "start": a, "end": b}, st.integers(-1, 9), st.integers(-1, 9)
    ),
)
_TYPES = st.sampled_from(["user/message", "assistant/message", "tool/result", "session/start", ""])


@st.composite
def _records(draw: st.DrawFn) -> Any:
    record: dict[str, Any] = {
        "seq": draw(st.one_of(st.integers(-1, 12), st.just("3"), st.just(True))),
        "type": draw(_TYPES),
        "time": draw(st.one_of(st.just("t"), st.just(5))),
        "data": draw(
            st.one_of(st.builds(lambda m: {"message": m}, _MESSAGES), st.just({}), st.just([]))
        ),
    }
    op = draw(_OPS)
    if op is not None:
        record["surface_op"] = op
    if draw(st.booleans()):
        record["source_event_seqs"] = draw(
            st.one_of(st.lists(st.integers(-1, 12), max_size=3), st.just("7"), st.just({}))
        )
    for key in draw(st.lists(st.sampled_from(["seq", "data", "extra"]), max_size=1)):
        if key == "extra":
            record["extra"] = 1
        else:
            record.pop(key)
    return draw(st.one_of(st.just(record), st.just([record]), st.just(None)))


def _outcome(read: Any) -> Any:
    try:
        event = read()
    except (ValueError, SurfaceError) as exc:
        return type(exc), str(exc)
    return event, event.message


@given(_records())
def test_from_json_reads_as_from_record_does(record: Any) -> None:
    line = json.dumps(record)
    expected = _outcome(lambda: Event.from_record(json.loads(line), plain_json=True))
    assert _outcome(lambda: Event.from_json(line)) == expected


@given(_records(), st.integers(0, 12))
def test_a_message_read_from_its_line_is_the_events(record: Any, seq: int) -> None:
    line, where = json.dumps(record).encode(), Path("log.jsonl")

    def outcome(read: Any) -> Any:
        try:
            message = read()
        except LogCorruptError as exc:
            return str(exc)
        return message if message is None else (message, message.metadata)

    expected = outcome(lambda: parse_line(where, seq + 1, line).message)
    assert outcome(lambda: message_of_line(where, seq, line)) == expected


def test_from_json_events_are_frozen_like_the_others() -> None:
    event = Event.from_json(
        '{"seq":0,"type":"user/message","time":"t","data":{"message":{"role":"user",'
        '"content":"x","metadata":{"k":[1]}}},"surface_op":"append"}'
    )
    with pytest.raises(TypeError):
        event.data["message"]["metadata"]["k"] = (2,)  # type: ignore[index]
    assert event.data["message"]["metadata"]["k"] == (1,)
    assert event.message == Message.user("x") and event.message is not event.message


@given(st.sampled_from(["user", "assistant", "tool", "system"]), st.one_of(st.none(), _TEXT))
def test_text_content_reads_as_one_text_block(role: str, text: str | None) -> None:
    base: dict[str, Any] = {"role": role, "name": "n", "reasoning_content": None}
    if role == "tool":
        base["tool_call_id"] = "c1"
    plain = Message.from_wire({**base, "content": text})
    blocks = [{"type": "text", "text": text}] if text else None
    assert plain == Message.from_wire({**base, "content": blocks})
    assert plain.content == (text or "")


_PATHS = st.lists(st.sampled_from(["a", "b.c", ".", "..", "", "/"]), max_size=5).map("".join)


@given(_PATHS)
def test_parts_split_as_purepath_does(text: str) -> None:
    path = PurePosixPath(text)
    root = SafeRoot(Path("/unused"))
    if path.is_absolute() or ".." in path.parts:
        with pytest.raises(PathEscapeError):
            root.parts(text)
    else:
        assert root.parts(text) == [p for p in path.parts if p not in ("", ".")]
        assert root.parts(path) == root.parts(text)


@given(st.binary(max_size=300), st.integers(0, 320))
def test_read_bytes_from_an_offset(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, offset: int
) -> None:
    folder = tmp_path_factory.mktemp("read")
    (folder / "f").write_bytes(data)
    assert SafeRoot(folder).read_bytes("f", offset) == data[offset:]
    assert SafeRoot(folder).read_bytes("f") == data


def test_read_bytes_refuses_as_the_buffered_reader(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "real").write_bytes(b"x")
    os.symlink(tmp_path / "real", tmp_path / "link")
    root = SafeRoot(tmp_path)
    for name, error in (
        ("dir", IsADirectoryError),
        ("gone", FileNotFoundError),
        ("link", PathEscapeError),
    ):
        with pytest.raises(error):
            root.read_bytes(name)
        with pytest.raises(error), root.open_read(name):
            pass


_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_TEXT, inner, max_size=3)),
    max_leaves=12,
)


@given(st.dictionaries(_TEXT, _JSON, max_size=4))
def test_a_lazily_frozen_event_reads_as_an_eagerly_frozen_one(data: dict[str, Any]) -> None:
    """An event read from a line freezes its data as it is read (FrozenJSON); an event built
    from a record freezes it at once: the two are equal, read the same values, write the same
    record, and neither can be changed through what it hands out."""
    record = {"seq": 0, "type": "session/start", "time": "t", "data": data}
    lazy, eager = Event.from_json(json.dumps(record)), Event.from_record(record)
    assert type(lazy.data).__name__ == "FrozenJSON"
    assert lazy == eager and eager == lazy and lazy.data == eager.data
    assert lazy.to_record() == eager.to_record() == record
    assert {key: lazy.data[key] for key in lazy.data} == dict(eager.data)
    with pytest.raises(TypeError):
        lazy.data["new"] = 1  # type: ignore[index]
    written = lazy.to_record()["data"]
    for value in written.values():
        if isinstance(value, (dict, list)):
            value.clear()  # the written copy is the caller's own
    assert lazy.to_record() == record


def _has_frozen_by_isinstance(value: Any) -> bool:
    """``events._has_frozen`` as it was, every value by isinstance."""
    if isinstance(value, dict):
        return any(_has_frozen_by_isinstance(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_frozen_by_isinstance(v) for v in value)
    return isinstance(value, (MappingProxyType, tuple))


_MIXED = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), _TEXT),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(_TEXT, inner, max_size=3),
        st.dictionaries(_TEXT, inner, max_size=3).map(MappingProxyType),
    ),
    max_leaves=10,
)


@given(_MIXED)
def test_has_frozen_by_exact_types_answers_as_by_isinstance(value: Any) -> None:
    assert _has_frozen(value) == _has_frozen_by_isinstance(value)


def _thaw_by_isinstance(value: Any) -> Any:
    """``events.thaw`` as it was, every value by isinstance."""
    if type(value) is FrozenJSON:
        return value.thawed()
    if isinstance(value, Mapping):
        return {k: _thaw_by_isinstance(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thaw_by_isinstance(v) for v in value]
    return value


def _typed(value: Any) -> Any:
    """``value`` with each container's exact type spelled out (a dict equals a mapping proxy,
    and a list is not a tuple only by ``==``)."""
    if isinstance(value, Mapping):
        return (type(value).__name__, sorted((k, _typed(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_typed(v) for v in value])
    return (type(value).__name__, value)


@given(_MIXED, st.booleans())
def test_thaw_by_exact_types_gives_what_it_gave_by_isinstance(value: Any, raw: bool) -> None:
    """Mappings (plain, read-only, lazily frozen), tuples, lists and scalars, nested: the same
    plain copy, container for container."""
    if raw:
        value = FrozenJSON({"v": json.loads(json.dumps(value, default=dict))})
    assert _typed(thaw(value)) == _typed(_thaw_by_isinstance(value))
