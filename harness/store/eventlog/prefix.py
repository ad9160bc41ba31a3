"""The events before a snapshot, read from the log when first asked for.

A log reopened from a snapshot (:mod:`~harness.store.eventlog.snapshot`) has folded its
surface without reading the events the snapshot covers. :class:`PrefixEvents` reads them on
demand: :meth:`~PrefixEvents.load` finds each asked-for event's stride of lines by the log's
marks (:mod:`~harness.store.eventlog.marks`) and reads those bytes once per stride (in ctxlab's
format only the asked-for lines are parsed: one event a line); :meth:`~PrefixEvents.all` reads
every one of them (for a walk over all events); :meth:`~PrefixEvents.messages` reads only the
surface messages the next request needs, in ctxlab's format straight from their lines, no event
built (:mod:`~harness.store.eventlog.line_messages`). The log is append-only, so the bytes before
the snapshot's offset never change under it; a read that does not find the events the marks
promise is a :class:`~harness.errors.LogCorruptError`.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterable
from contextlib import closing

from harness.errors import LogCorruptError
from harness.fs.path import WorkspacePath
from harness.messages import Message
from harness.store.eventlog.events import Event
from harness.store.eventlog.line_messages import message_of_line
from harness.store.eventlog.marks import Marks
from harness.store.eventlog.scan import Scan, parse_line, read_at

__all__ = ["PrefixEvents"]


class PrefixEvents:
    """The first ``count`` events of the log at ``file`` (in ``format``), which end at byte
    ``offset`` and sit where ``marks`` say."""

    def __init__(
        self, file: WorkspacePath, format: str, count: int, offset: int, marks: Marks
    ) -> None:
        self.file, self.format, self.count, self.offset = file, format, count, offset
        self.marks = marks

    def load(self, seqs: Iterable[int]) -> dict[int, Event]:
        """The events ``seqs`` (each below ``count``), one read per stride holding some."""
        found: dict[int, Event] = {}
        with closing(self._strides(seqs)) as strides:  # the file closed on an error too
            for (first, _, _), raw, wanted in strides:
                found.update(self._decode(raw, first, wanted))
        return found

    def messages(self, seqs: Iterable[int]) -> dict[int, Message | None]:
        """The messages of the surface events ``seqs`` (None for an event of another type),
        one read per stride; in ctxlab's format each straight from its line, no event built
        (:mod:`~harness.store.eventlog.line_messages`), in dsh's from the events read."""
        if self.format != "ctxlab":
            return {seq: event.message for seq, event in self.load(seqs).items()}
        found: dict[int, Message | None] = {}
        path = self.file.path  # a Path made once, not per line
        with closing(self._strides(seqs)) as strides:  # the file closed on an error too
            for (first, _, _), raw, wanted in strides:
                lines = raw.split(b"\n")  # the last: the empty rest after the block's newline
                if max(wanted) - first >= len(lines) - 1:
                    raise LogCorruptError(f"{path}: no line for event {max(wanted)}")
                for seq in wanted:
                    found[seq] = message_of_line(path, seq, lines[seq - first])
        return found

    def _strides(
        self, seqs: Iterable[int]
    ) -> Generator[tuple[tuple[int, int, int], bytes, list[int]], None, None]:
        """Each block of lines holding some of ``seqs`` (:meth:`Marks.blocks`), its bytes and
        the seqs in it."""
        blocks = self.marks.blocks(seqs, self.offset)
        fd = self.file.open_fd(os.O_RDONLY)
        try:
            for block, wanted in blocks.items():
                yield block, read_at(fd, block[1], block[2] - block[1]), wanted
        finally:
            os.close(fd)

    def stride(self, seq: int) -> tuple[int, bytes]:
        """The first seq and the bytes of the stride of lines holding event ``seq``
        (ValueError when it is before the first mark)."""
        first, start, stop = self.marks.block(seq, self.offset)
        fd = self.file.open_fd(os.O_RDONLY)
        try:
            return first, read_at(fd, start, stop - start)
        finally:
            os.close(fd)

    def all(self) -> list[Event]:
        """Every one of the ``count`` events, in order."""
        fd = self.file.open_fd(os.O_RDONLY)
        try:
            raw = read_at(fd, 0, self.offset)
        finally:
            os.close(fd)
        events = self._scan(raw, 0, at_start=True).events
        if len(events) != self.count:
            raise LogCorruptError(
                f"{self.file.path}: {len(events)} events before its snapshot's offset, "
                f"not {self.count}"
            )
        return events

    def _decode(self, raw: bytes, first: int, wanted: list[int]) -> dict[int, Event]:
        if self.format == "ctxlab":  # one event a line: parse the lines asked for only
            lines, path = raw.split(b"\n"), self.file.path  # a Path made once, not per line
            try:
                return {s: parse_line(path, s + 1, lines[s - first]) for s in wanted}
            except IndexError:
                where = f"{self.file.path}: no line for event {max(wanted)}"
                raise LogCorruptError(where) from None
        events = self._scan(raw, first, at_start=False).events
        by_seq = {e.seq: e for e in events}
        if missing := [s for s in wanted if s not in by_seq]:
            raise LogCorruptError(f"{self.file.path}: no event {missing[0]} where marked")
        return {s: by_seq[s] for s in wanted}

    def _scan(self, raw: bytes, first: int, at_start: bool) -> Scan:
        from harness.store.eventlog.codec import make_codec  # a fresh reader: no shared state

        return make_codec(self.format, self.file.path).scan(self.file.path, raw, first, at_start)
