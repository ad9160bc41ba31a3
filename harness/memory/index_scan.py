"""memory_search's scan: what the index would say of lines it does not hold yet, computed per
block with C-level bytes operations instead of tokenising each line in Python.

A query over a file part the index has not reached (a first query over a large corpus, an
index grown within its budget, the line after a file's last newline) needs, per block of whole
lines (:func:`~harness.memory.index_build.line_blocks`): the block's non-blank lines and their
tokens (BM25's line count and average length), each query term's lines and counts (its
document frequency and the codes :func:`~harness.memory.index_query.batch_scores` adds), and
the lines holding the query literally. All from the block's lower-cased UTF-8 bytes:

- **Lower-casing**: ``bytes.lower`` when the block is ASCII, or valid UTF-8 in which no
  character ``str.lower`` changes is outside ASCII; otherwise the text (decoded with errors
  replaced, as the search shows it) lower-cased and encoded again. Either way the bytes are
  valid UTF-8 of exactly the lower-cased text ``tokenize`` sees, line for line.
- **Token counts**: one ``bytes.translate`` maps each byte to its class (a word byte ``w``, the
  lead byte of a CJK character ``c``, any other character a space; continuation bytes
  deleted), then a few ``bytes.replace`` put a ``t`` at each Latin word's start, one at each
  CJK character and one more between two adjacent CJK characters (its pair token), and
  ``translate`` keeps only the ``t`` and newlines: each line's length is its token count.
- **A term's count in a line**: a Latin term is counted as `` term `` in the line with every
  non-word byte made a doubled space (so two adjacent occurrences are both counted); a CJK
  character or pair as its UTF-8 bytes (a pair of one character twice may overlap itself, and
  is counted with a lookahead). A CJK character and a pair holding it that the block holds
  equally often are in the same lines as often: counted once.
- **Blank lines** (not lines to ``rank_lines``): only lines without a token are looked at.

The postings a block gives are kept until the query scores them (the statistics need every
part first): per term, the lines holding it and their codes, the same arrays for terms with
the same counts in every line (``上海港 booking`` on the benchmark's ledger: 12 bytes a line),
at most :data:`HOLD_BYTES` across a query's files; beyond, they are let go and each block is
read again when the query scores it (:meth:`Scanned.scored`).

Measured and not kept: the block's token count and its token-less lines from ``bytes.count``
of class pairs, with line lengths only for the lines holding a term (``tokenize`` per line
when few do) cost more than the passes above (1M lines, CPU, alternated in one process:
``夜莺`` 1.56 s against 1.33 s, ``上海港 booking`` 3.07 s against 2.28 s).
"""

from __future__ import annotations

import itertools
import operator
import re
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import BinaryIO

from harness.memory.index_build import TF_SHIFT, line_blocks
from harness.memory.index_query import _lowers_as_ascii, _matches

__all__ = ["HOLD_BYTES", "Scanned", "ScannedBlock", "lowered_bytes", "scan_part"]

HOLD_BYTES = 64 << 20
"""The most bytes of postings a scan keeps until the query scores them (5M lines of a ledger
for terms every line holds once); beyond, it keeps none and the query reads the part again
to score it a block at a time: memory stays bounded whatever the corpus, for a second read."""

_WORD = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
_CJK_LEADS = range(0xE4, 0xEA)  # U+4000 .. U+9FFF; U+3400 .. and U+F900 .. are rewritten first
_CJK_EDGES = re.compile(rb"\xe3[\x90-\xbf][\x80-\xbf]|\xef[\xa4-\xab][\x80-\xbf]")
_SOME_CJK = "\u4e00".encode()


def _table(word: int | None) -> bytes:
    """A translation table: word bytes to ``word`` (None: kept), CJK leads to ``c`` when
    ``word`` is given, newlines kept, every other byte a space."""
    table = bytearray(b" " * 256)
    for byte in _WORD:
        table[byte] = byte if word is None else word
    if word is not None:
        for byte in _CJK_LEADS:
            table[byte] = ord("c")
    table[ord("\n")] = ord("\n")
    return bytes(table)


_CLASSES, _LATIN = _table(ord("w")), _table(None)
_CONTINUATION = bytes(range(0x80, 0xC0))
_NOT_MARK = bytes(b for b in range(256) if b not in b"t\n")


def lowered_bytes(block: bytes) -> bytes:
    """The UTF-8 bytes of ``block``'s text (decoded with errors replaced) lower-cased."""
    if block.isascii():
        return block.lower()
    try:
        block.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        if _lowers_as_ascii(block):
            return block.lower()
    return block.decode("utf-8", errors="replace").lower().encode("utf-8")


def _lengths(low: bytes, count: int) -> list[int]:
    """Each line's token count (``tokenize``'s: Latin words, CJK characters, CJK pairs)."""
    if b"\xe3" in low or b"\xef" in low:  # CJK characters outside the leads E4 .. E9
        low = _CJK_EDGES.sub(_SOME_CJK, low)
    classes = b" " + low.translate(_CLASSES, _CONTINUATION).replace(b"\n", b"\n ")
    if b"c" in classes:
        classes = classes.replace(b"cw", b"c w").replace(b"wc", b"w c")
        classes = classes.replace(b"c", b"tc").replace(b"ct", b"ctt")
    marks = classes.replace(b" w", b" t").translate(None, _NOT_MARK)
    return list(map(len, marks.split(b"\n", count)[:count]))


@dataclass
class ScannedBlock:
    """Lines ``first .. first + count - 1`` of a file, at bytes ``start .. start + size``."""

    first: int
    count: int
    start: int
    size: int
    held: list[tuple[int, array[int], array[int]]]
    """Per query term it holds (position in the query's terms, in order): lines, codes."""


@dataclass
class Scanned:
    """A file part as the index would see it, for one query."""

    frequencies: list[int]
    lines: int = 0
    nonblank: int = 0
    total: int = 0
    blocks: list[ScannedBlock] = field(default_factory=list)
    """The blocks holding a query term, with their postings (none when ``dropped``)."""
    literal: list[tuple[int, str]] = field(default_factory=list)
    spans: list[tuple[int, int, int, int]] = field(default_factory=list)
    """Every block: its first line, line count, start and size."""
    dropped: bool = False
    """Whether the postings outgrew their budget and were let go (scored by a rescan)."""
    kept: int = 0
    """The bytes of postings kept."""

    def text(self, handle: BinaryIO, line: int) -> str:
        """The text of a scanned line (read again from its block)."""
        for first, count, start, size in self.spans:
            if first <= line < first + count:
                handle.seek(start)
                data = handle.read(size).split(b"\n")
                return data[line - first].decode("utf-8", errors="replace")
        raise ValueError(f"line {line} was not scanned")

    def scored(self, handle: BinaryIO, order: Sequence[str]) -> Iterator[ScannedBlock]:
        """The blocks holding a query term with their postings: those kept, or, when they
        were let go, each block read and its postings computed again, one at a time."""
        if not self.dropped:
            yield from self.blocks
            return
        for first, count, start, size in self.spans:
            handle.seek(start)
            block = handle.read(size)
            low = lowered_bytes(block)
            held = _held(order, low, first, _lengths(low, count), [0] * len(order))
            if held:
                yield ScannedBlock(first, count, start, size, held)


def _occurrences(term: str, text: bytes) -> int:
    """How often ``text`` (spaced for a Latin term, lower-cased for a CJK one) holds
    ``term`` as a token; the same function of each line gives its count in that line."""
    if term.isascii():
        return text.count(f" {term} ".encode())
    wanted = term.encode("utf-8")
    if len(term) == 2 and term[0] == term[1]:  # occurrences overlap: "xxx" holds two
        return len(re.findall(b"(?=" + re.escape(wanted) + b")", text))
    return text.count(wanted)


class _Lines:
    """A block's lines, split once when a term asks: spaced (every non-word byte a doubled
    space, a space at each end: Latin terms) or lower-cased (CJK terms)."""

    def __init__(self, low: bytes, count: int) -> None:
        self.low, self.count = low, count
        self._wide: bytes | None = None
        self._split: dict[bool, list[bytes]] = {}
        self._cjk: list[tuple[str, int, list[int]]] = []

    def counts(self, term: str) -> list[int] | None:
        """``term``'s count in each line (None: in none). A CJK character and a pair holding
        it that the block holds equally often are in the same lines, as often (a pair's
        occurrence holds its own occurrence of the character): counted once."""
        latin = term.isascii()
        if latin and self._wide is None:
            wide = self.low.translate(_LATIN).replace(b" ", b"  ").replace(b"\n", b" \n ")
            self._wide = b" " + wide + b" "
        total = _occurrences(term, self._wide if latin and self._wide else self.low)
        if not total:
            return None
        for other, times, known in [] if latin else self._cjk:
            if times == total and (other in term or term in other):
                return known
        if latin not in self._split:
            text = self._wide if latin and self._wide is not None else self.low
            self._split[latin] = text.split(b"\n", self.count)[: self.count]
        lines = self._split[latin]
        if latin or len(term) == 1 or term[0] != term[1]:  # occurrences cannot overlap
            wanted = f" {term} ".encode() if latin else term.encode("utf-8")
            found = list(map(bytes.count, lines, itertools.repeat(wanted)))
        else:
            found = [_occurrences(term, line) for line in lines]
        if not latin:
            self._cjk.append((term, total, found))
        return found


def _held(
    order: Sequence[str], low: bytes, first: int, lengths: list[int], frequencies: list[int]
) -> list[tuple[int, array[int], array[int]]]:
    """Per query term the block holds: its lines and codes (count << 32 | line length), the
    same arrays for terms with the same counts in every line (a CJK word's characters and
    pairs)."""
    lines = _Lines(low, len(lengths))
    made: list[tuple[list[int], tuple[array[int], array[int]]]] = []
    held = []
    for k, term in enumerate(order):
        counts = lines.counts(term)
        if counts is None:
            continue
        same = next((arrays for seen, arrays in made if seen is counts or seen == counts), None)
        if same is None:
            same = _postings(counts, first, lengths)
            made.append((counts, same))
        frequencies[k] += len(same[0])
        held.append((k, *same))
    return held


def _postings(counts: list[int], first: int, lengths: list[int]) -> tuple[array[int], array[int]]:
    """The lines (numbered from ``first``) with a count above 0 and their codes, in C."""
    lines = array("I", itertools.compress(range(first, first + len(counts)), counts))
    held = itertools.compress(counts, counts)
    shifted = map(operator.lshift, held, itertools.repeat(TF_SHIFT))
    return lines, array("Q", map(operator.add, shifted, itertools.compress(lengths, counts)))


def _blank(block: bytes, lengths: list[int]) -> int:
    """How many of the block's lines are blank (only lines without a token may be)."""
    texts = block.split(b"\n", len(lengths))
    empty = itertools.compress(range(len(lengths)), map(operator.not_, lengths))
    return sum(not texts[i].decode("utf-8", "replace").strip() for i in empty)


def scan_part(
    handle: BinaryIO, start: int, first: int, size: int, order: Sequence[str], needle: str,
    hold: int | None = None,
) -> Scanned:  # fmt: skip
    """The lines of ``handle`` from byte ``start`` (a line start; line ``first``) to ``size``
    (the last one may lack its newline), scanned for the query terms ``order`` and the
    lower-cased ``needle``, keeping at most ``hold`` bytes of postings (None:
    :data:`HOLD_BYTES`; a query shares it among its files)."""
    limit = HOLD_BYTES if hold is None else hold
    part = Scanned([0] * len(order))
    try:
        wanted = needle.encode("utf-8") if needle and "\n" not in needle else b""
    except UnicodeEncodeError:
        wanted = b""  # a lone surrogate: no decoded text holds one
    line, offset, kept = first, start, 0
    for block in line_blocks(handle, start, size, tail=True):
        count = block.count(b"\n") + (not block.endswith(b"\n"))
        low = lowered_bytes(block)
        lengths = _lengths(low, count)
        blank = _blank(block, lengths) if 0 in lengths else 0
        part.lines += count
        part.nonblank += count - blank
        part.total += sum(lengths)
        held = _held(order, low, line, lengths, part.frequencies) if order else []
        part.spans.append((line, count, offset, len(block)))
        kept += 12 * sum(map(len, {id(lines): lines for _, lines, _ in held}.values()))
        if held and not part.dropped:
            part.blocks.append(ScannedBlock(line, count, offset, len(block), held))
            if kept > limit:
                part.dropped = True
                part.blocks.clear()
        if wanted:
            part.literal.extend(_matches(block, low, wanted, line))
        line += count
        offset += len(block)
    part.kept = 0 if part.dropped else kept
    return part
