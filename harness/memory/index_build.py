"""Tokenising a memory file into batches of postings, reading it a block at a time.

A :class:`Batch` is a run of complete lines of one file: where each line starts in the file,
how many lines are non-blank and how many tokens they hold (what BM25's line count and average
length are made of), each line's token count, and per term the lines holding it (and how often,
for the lines holding it more than once). :func:`batches` reads the file in blocks of
:data:`BLOCK_BYTES` and yields a batch once it holds :data:`BATCH_LINES` lines (or at the end),
so memory holds one block and one batch, whatever the file's size. The line after the last
newline (a write cut short, or a file edited by hand) is no batch: :func:`tail_line` gives it,
and the index keeps it out of the database.
"""

from __future__ import annotations

import itertools
from array import array
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from harness.text_search import tokenize

__all__ = ["BATCH_LINES", "BLOCK_BYTES", "TF_SHIFT", "Batch", "TailLine", "batches", "tail_line"]

TF_SHIFT = 32
BLOCK_BYTES = 1 << 20
"""How much of a file is read at once."""
BATCH_LINES = 16_384
"""Lines per batch (a batch is what a query scores at once, so it bounds a query's memory)."""


@dataclass
class Batch:
    """Complete lines ``first .. first + count - 1`` (0-based) of one file, tokenised."""

    first: int
    count: int = 0
    starts: array[int] = field(default_factory=lambda: array("Q"))
    """Where each line starts in the file (bytes)."""
    lengths: array[int] = field(default_factory=lambda: array("I"))
    """Each line's token count."""
    nonblank: int = 0
    total: int = 0
    """Tokens in the non-blank lines."""
    postings: dict[str, list[int]] = field(default_factory=dict)
    """term -> the lines holding it once (0-based in the file)."""
    repeats: dict[str, dict[int, int]] = field(default_factory=dict)
    """term -> {line: count} for the lines holding it more than once (also in ``postings``)."""
    end: int = 0
    """The offset just after its last line's newline."""

    def add(self, text: str, start: int) -> None:
        index = self.first + self.count
        self.count += 1
        self.starts.append(start)
        tokens = tokenize(text)
        length = len(tokens)
        self.lengths.append(length)
        if text.strip():
            self.nonblank += 1
            self.total += length
        if not length:
            return
        postings = self.postings
        distinct = set(tokens)
        if len(distinct) < length:  # a term held more than once: count them
            for term, count in Counter(tokens).items():
                if count > 1:
                    self.repeats.setdefault(term, {})[index] = count
        for term in distinct:
            found = postings.get(term)
            if found is None:
                postings[term] = [index]
            else:
                found.append(index)


def batches(handle: BinaryIO, start: int, first: int, size: int) -> Iterator[Batch]:
    """The complete lines of ``handle`` between byte ``start`` (a line start; line number
    ``first``) and ``size``, as batches. A line is decoded as UTF-8 with errors replaced, as
    the search shows it."""
    handle.seek(start)
    batch = Batch(first)
    offset, carry, remaining = start, b"", size - start
    while remaining > 0:
        block = handle.read(min(BLOCK_BYTES, remaining))
        if not block:
            break
        remaining -= len(block)
        data = carry + block if carry else block
        cut = data.rfind(b"\n") + 1
        carry = data[cut:]
        if not cut:
            continue
        pieces = data[:cut].split(b"\n")
        pieces.pop()  # the empty text after the last newline
        texts = data[:cut].decode("utf-8", errors="replace").split("\n")
        texts.pop()
        widths = (len(piece) + 1 for piece in pieces)
        starts = itertools.accumulate(widths, initial=offset)  # one more: the block's end
        for text, line_start in zip(texts, starts, strict=False):
            batch.add(text, line_start)
        offset += cut
        batch.end = offset
        if batch.count >= BATCH_LINES:
            yield batch
            batch = Batch(batch.first + batch.count, end=offset)
    if batch.count:
        yield batch


@dataclass(frozen=True)
class TailLine:
    """The text after a file's last newline: one line that may still grow."""

    counts: Counter[str]
    length: int
    nonblank: bool


def tail_line(data: bytes) -> TailLine:
    text = data.decode("utf-8", errors="replace")
    tokens = tokenize(text)
    return TailLine(Counter(tokens), len(tokens), bool(text.strip()))
