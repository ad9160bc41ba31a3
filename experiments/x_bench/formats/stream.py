"""The first items of a JSON array, read one at a time (``ctxlab bench --limit N``).

LongMemEval's haystack files are one array of large items, and may be larger than
:data:`~experiments.x_bench.limits.MAX_FILE_BYTES` lets ``ctxlab bench`` read.
With ``--limit N`` only the first N items are parsed: the file is read in chunks, each item
decoded as soon as it is whole, and reading stops after the N-th, so the limits still hold on
what is read (at most ``MAX_FILE_BYTES`` of it, each item nested at most ``MAX_JSON_DEPTH``
levels), not on the part of the file left unread. A file that is one object, not an array, is
its one item.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from experiments.x_bench.limits import MAX_FILE_BYTES
from experiments.x_bench.schema import BenchFileError
from harness.json_depth import MAX_JSON_DEPTH, json_depth

__all__ = ["CHUNK_BYTES", "first_items"]

CHUNK_BYTES = 1 << 20
_SPACE = " \t\r\n"


class _Buffer:
    """The file's text read so far, from the current item on; more on demand."""

    def __init__(self, file: IO[bytes], path: Path) -> None:
        self.file, self.path, self.text, self.pos, self.read = file, path, "", 0, 0
        self.decode = codecs.getincrementaldecoder("utf-8")().decode
        self.eof = False

    def more(self) -> bool:
        """Read one more chunk; False at the end of the file."""
        if self.eof:
            return False
        raw = self.file.read(CHUNK_BYTES)
        self.read += len(raw)
        if self.read > MAX_FILE_BYTES:
            raise BenchFileError(
                f"The first items of {self.path} hold more than {MAX_FILE_BYTES:,} bytes, the "
                "most ctxlab bench reads; pass a smaller --limit."
            )
        try:
            self.text += self.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            raise BenchFileError(
                f"The conversations file {self.path} is not UTF-8 ({exc})."
            ) from None
        self.eof = not raw
        return True

    def next_char(self) -> str:
        """The next character that is not white space ('' at the end), not consumed."""
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in _SPACE:
                self.pos += 1
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.more():
                return ""

    def value(self) -> Any:
        """The JSON value at the current position, read until it is whole."""
        decoder = json.JSONDecoder()
        while True:
            rest = self.text[self.pos :]
            if json_depth(rest) > MAX_JSON_DEPTH:  # a prefix's depth never exceeds the whole's
                raise BenchFileError(
                    f"The conversations file {self.path} is nested more than {MAX_JSON_DEPTH} "
                    "levels deep."
                )
            try:
                value, end = decoder.raw_decode(rest)
                if end < len(rest) or self.eof:  # a number at the buffer's end may go on
                    self.text, self.pos = rest[end:], 0
                    return value
            except json.JSONDecodeError as exc:
                if self.eof:
                    raise BenchFileError(
                        f"The conversations file {self.path} is not JSON ({exc.msg})."
                    ) from None
            self.more()


def first_items(path: Path, limit: int) -> Iterator[Any]:
    """The first ``limit`` items of the JSON array in ``path`` (a lone object: itself)."""
    try:
        file = path.open("rb")
    except OSError as exc:
        raise BenchFileError(f"The conversations file {path} cannot be read ({exc}).") from None
    with file:
        buffer = _Buffer(file, path)
        if buffer.next_char() != "[":
            yield buffer.value()
            return
        buffer.pos += 1
        for count in range(limit):
            if buffer.next_char() == "]":
                return
            yield buffer.value()
            after = buffer.next_char()
            if after == ",":
                buffer.pos += 1
            elif after != "]":
                raise BenchFileError(
                    f"The conversations file {path} is not JSON (after item {count})."
                )
