"""Tokenising a memory file into batches of postings, reading it a block at a time.

A :class:`Batch` is a run of complete lines of one file: where each line starts in the file,
how many lines are non-blank and how many tokens they hold (what BM25's line count and average
length are made of), each line's token count, and per term the lines holding it (and how often,
for the lines holding it more than once). :func:`batches` reads the file in blocks of
:data:`BLOCK_BYTES` and yields a batch once it holds :data:`BATCH_LINES` lines (or at the end),
so memory holds one block and one batch, whatever the file's size. The line after the last
newline (a write cut short, or a file edited by hand) is no batch: the index scans it
(:mod:`harness.memory.index_scan`) and keeps it out of the database.
"""

from __future__ import annotations

import functools
import itertools
import re
from array import array
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

__all__ = [
    "BATCH_LINES",
    "BLOCK_BYTES",
    "TF_SHIFT",
    "Batch",
    "batches",
    "line_blocks",
]

TF_SHIFT = 32
BLOCK_BYTES = 1 << 18
"""How much of a file is read at once (its text and tokens are most of a build's memory)."""
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
    postings: defaultdict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    """term -> the lines holding it once (0-based in the file)."""
    repeats: dict[str, dict[int, int]] = field(default_factory=dict)
    """term -> {line: count} for the lines holding it more than once (also in ``postings``)."""
    end: int = 0
    """The offset just after its last line's newline."""

    def add(self, tokens: list[str], nonblank: bool, start: int) -> None:
        """Add the next line: its tokens, whether it is non-blank, where it starts."""
        index = self.first + self.count
        self.count += 1
        self.starts.append(start)
        length = len(tokens)
        self.lengths.append(length)
        if nonblank:
            self.nonblank += 1
            self.total += length
        if not length:
            return
        distinct = set(tokens)
        surplus = length - len(distinct)
        if surplus:  # some terms more than once: count each until the surplus is found
            for term in distinct:
                count = tokens.count(term)
                if count > 1:
                    self.repeats.setdefault(term, {})[index] = count
                    surplus -= count - 1
                    if not surplus:
                        break
        postings = self.postings
        for term in distinct:
            postings[term].append(index)


_CJK = "\u3400-\u9fff\uf900-\ufaff"  # as harness.text_search's
_CJK_RUN = re.compile(f"[{_CJK}]+")
_TOKEN_OR_NEWLINE = re.compile(f"[a-z0-9_]+|[{_CJK}]+|\n")


@functools.lru_cache(maxsize=65_536)
def _spread(run: str) -> str:
    """A run of CJK characters as its tokens (each character, each adjacent pair), spaced."""
    return " ".join(["", *run, *(run[i : i + 2] for i in range(len(run) - 1)), ""])


def block_tokens(text: str) -> list[str]:
    """:func:`~harness.text_search.tokenize` of every line of ``text`` at once: the tokens,
    each line's followed by ``"\\n"`` (lower-casing the joined lines is lower-casing each; a
    CJK run is spread into its characters and pairs, spaced, so that one pattern then finds
    every token, in C)."""
    spread = _CJK_RUN.sub(lambda match: _spread(match.group()), text.lower())
    return _TOKEN_OR_NEWLINE.findall(spread)


def line_blocks(handle: BinaryIO, start: int, size: int, tail: bool = False) -> Iterator[bytes]:
    """The bytes of ``handle`` from ``start`` (a line start) to ``size``, in blocks of whole
    lines, each ending with a newline; with ``tail``, then the text after the last newline as
    a block of its own (when there is any)."""
    handle.seek(start)
    carry, remaining = b"", size - start
    while remaining > 0:
        block = handle.read(min(BLOCK_BYTES, remaining))
        if not block:
            break
        remaining -= len(block)
        data = carry + block if carry else block
        cut = data.rfind(b"\n") + 1
        carry = data[cut:]
        if cut:
            yield data[:cut]
    if tail and carry:
        yield carry


def batches(handle: BinaryIO, start: int, first: int, size: int) -> Iterator[Batch]:
    """The complete lines of ``handle`` between byte ``start`` (a line start; line number
    ``first``) and ``size``, as batches. A line is decoded as UTF-8 with errors replaced, as
    the search shows it."""
    batch = Batch(first)
    offset = start
    for data in line_blocks(handle, start, size):
        cut = len(data)
        pieces = data.split(b"\n")
        pieces.pop()  # the empty text after the last newline
        text = data.decode("utf-8", errors="replace")
        texts = text.split("\n")
        texts.pop()
        tokens = block_tokens(text)
        widths = (len(piece) + 1 for piece in pieces)
        starts = itertools.accumulate(widths, initial=offset)  # one more: the block's end
        at = 0
        for line, line_start in zip(texts, starts, strict=False):
            end = tokens.index("\n", at)
            batch.add(tokens[at:end], not line.isspace() and bool(line), line_start)
            at = end + 1
        offset += cut
        batch.end = offset
        if batch.count >= BATCH_LINES:
            yield batch
            batch = Batch(batch.first + batch.count, end=offset)
    if batch.count:
        yield batch
