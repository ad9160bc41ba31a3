"""A surface event's message read straight from its log line, without building the event.

A reopen from a snapshot (:mod:`~harness.store.eventlog.snapshot`) has not read the events
before it; the next request needs every message on the surface, and nothing else of those
events (their ``Event`` objects, frozen data and checks are what :mod:`.prefix` would build,
then drop into a cache nobody reads). :func:`message_of_line` parses the line once and checks
what :meth:`Event.from_json` checks on the common shape of a surface line (an ``append`` with
a dict ``data.message``); anything else (a replace op, a wrong seq, a bad field) goes through
:func:`~harness.store.eventlog.scan.parse_line`, the full reading, which gives the same message
or raises the same :class:`~harness.errors.LogCorruptError`. A test holds the two equal on any
record (``tests/harness/store/test_read_fast_paths.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.messages import Message
from harness.store.eventlog.events import ROLE_OF_TYPE
from harness.store.eventlog.scan import parse_line

__all__ = ["message_of_line"]

_NEEDED_KEYS = frozenset({"seq", "type", "time", "data"})
_RECORD_KEYS = _NEEDED_KEYS | {"surface_op", "source_event_seqs"}


def message_of_line(path: Path, seq: int, line: bytes) -> Message | None:
    """The message of event ``seq``, whose line (the log's line ``seq + 1``) is ``line``: what
    ``parse_line(path, seq + 1, line).message`` gives (None for an event of another type), a
    message of its own; LogCorruptError as ``parse_line`` raises it."""
    try:
        message = _common(json.loads(line.decode("utf-8")), seq)
    except (ValueError, TypeError, AttributeError, RecursionError):
        message = None  # the full reading says why
    if message is None:
        return parse_line(path, seq + 1, line).message
    return message


def _common(record: Any, seq: int) -> Message | None:
    """The message of ``record`` when it is a well-formed appended surface event ``seq``, else
    None (or an error of the message's reader): every check ``Event.from_json`` makes."""
    if type(record) is not dict or not _NEEDED_KEYS <= record.keys() <= _RECORD_KEYS:
        return None
    found, role = record["seq"], ROLE_OF_TYPE.get(record["type"])
    if type(found) is not int or found != seq or role is None:
        return None
    if record.get("surface_op") != "append" or type(record["time"]) is not str:
        return None
    data = record["data"]
    wire = data.get("message") if type(data) is dict else None
    if type(wire) is not dict:
        return None
    if "source_event_seqs" in record and not _sources_fine(record["source_event_seqs"], seq):
        return None
    message = Message.from_record(wire)  # json.loads's dicts: nobody else holds them
    return message if message.role == role else None


def _sources_fine(sources: Any, seq: int) -> bool:
    """A list of distinct earlier seqs (plain ints)."""
    if type(sources) is not list:
        return False
    if not sources:
        return True
    return (
        all(type(s) is int for s in sources)
        and min(sources) >= 0
        and max(sources) < seq
        and len(set(sources)) == len(sources)
    )
