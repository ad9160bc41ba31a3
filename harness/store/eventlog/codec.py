"""How an :class:`~harness.store.eventlog.log.EventLog` puts events in its file: the seam
between the log and its on-disk format.

Two formats: ``"ctxlab"`` (the default: one :meth:`Event.to_json` line per event) and
``"dsh"`` (DeepSeek-Harness's JSONL session file, :mod:`harness.store.dsh`). A codec turns an
event into its line (:meth:`Codec.encode`), reads a run of the file's bytes back into events
(:meth:`Codec.scan`, a torn last line set apart as :mod:`~harness.store.eventlog.scan` does),
and names what must precede the first event of a new file (:meth:`Codec.preamble`: dsh's
session header line). :func:`detect` tells the formats apart by the first line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from harness.errors import ConfigError, EventLogError
from harness.fs.path import WorkspacePath
from harness.store.eventlog.dsh_format import DshCodec, is_header
from harness.store.eventlog.events import Event
from harness.store.eventlog.formats import FORMATS, LogFormat
from harness.store.eventlog.scan import Scan, scan_bytes

__all__ = [
    "FORMATS",
    "Codec",
    "JsonlCodec",
    "LogFormat",
    "codec_of",
    "detect",
    "make_codec",
    "read_events",
    "scan_with",
]


class Codec(Protocol):
    """One log format (see the module docstring)."""

    format: LogFormat

    def preamble(self, first: Event) -> str:
        """The text written before ``first``, the first event of a new file ("" for none)."""
        ...

    def encode(self, event: Event) -> str:
        """One line for ``event`` (no newline)."""
        ...

    def scan(self, path: Path, raw: bytes, first_seq: int, at_start: bool) -> Scan:
        """The events in ``raw`` (the file's bytes from the line holding ``first_seq``;
        ``at_start`` when they begin at byte 0)."""
        ...

    def state(self) -> dict[str, Any]:
        """What the codec learned from the lines it read (JSON), for a snapshot."""
        ...

    def restore(self, state: Mapping[str, Any]) -> None:
        """Take up :meth:`state` as a snapshot saved it (its lines are not read again)."""
        ...

    def settle(self, read: Callable[[int], tuple[int, bytes]]) -> None:
        """Every event so far is in the file, where ``read(seq)`` gives the first seq and
        the bytes of the lines holding one: what the codec kept of them can be read back."""
        ...


class JsonlCodec:
    """ctxlab's own format: each line one :meth:`Event.to_json`."""

    format: LogFormat = "ctxlab"

    def preamble(self, first: Event) -> str:
        return ""

    def encode(self, event: Event) -> str:
        return event.to_json()

    def scan(self, path: Path, raw: bytes, first_seq: int, at_start: bool) -> Scan:
        return scan_bytes(path, raw, first_seq)

    def state(self) -> dict[str, Any]:
        return {}  # each line stands alone

    def restore(self, state: Mapping[str, Any]) -> None:
        pass

    def settle(self, read: Callable[[int], tuple[int, bytes]]) -> None:
        pass  # keeps nothing of the lines


def detect(head: bytes) -> LogFormat:
    """The format of a file starting with ``head``: dsh when its first line is a session
    header (``{"type": "session", ...}``), else ctxlab's."""
    return "dsh" if is_header(head.split(b"\n", 1)[0]) else "ctxlab"


def make_codec(format: str, path: Path | None) -> Codec:
    """The codec for ``format``; ConfigError for an unknown one."""
    if format == "ctxlab":
        return JsonlCodec()
    if format == "dsh":
        return DshCodec(path)
    raise ConfigError(f"unknown event-log format {format!r}; use one of {', '.join(FORMATS)}")


def codec_of(file: WorkspacePath, format: LogFormat | None) -> Codec:
    """The codec for the file's format (its first line), or ``format`` for a new file."""
    try:
        with file.root.open_read(file.relative) as handle:  # never through a symlink
            head = handle.read(4096)
    except FileNotFoundError:
        head = b""
    return codec_for_head(head, file.path, format)


def codec_for_head(head: bytes, path: Path, format: LogFormat | None) -> Codec:
    """The codec for a file at ``path`` whose first bytes are ``head`` (empty: a new file, in
    ``format`` or ctxlab's); EventLogError when ``format`` names another."""
    found = detect(head) if head else None
    if found is not None and format is not None and found != format:
        raise EventLogError(f"{path} is a {found} session log, not {format}")
    return make_codec(found or format or "ctxlab", path)


def scan_with(file: WorkspacePath, codec: Codec) -> Scan:
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        return Scan()
    return codec.scan(file.path, raw, 0, at_start=True)


def read_events(path: Path | WorkspacePath) -> list[Event]:
    """The events of the log at ``path`` without changing the file (a torn last line is
    left out); LogCorruptError for a bad line elsewhere."""
    file = WorkspacePath.of(path)
    return scan_with(file, codec_of(file, None)).events
