"""memory_search's per-file index (:class:`FileIndex`) and its cache file format.

A cache file is a header (:data:`_HEADER`), flat arrays (line lengths, term offsets, postings,
codes, line starts in the file and in the lower-cased text), the sorted terms, the lower-cased
text and a CRC-32 of all of it. :func:`decode` takes one only when every check passes (see
:mod:`harness.memory.index`).
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import operator
import struct
import sys
import zlib
from array import array
from collections import Counter
from dataclasses import dataclass
from typing import Protocol

from harness.text_search import K1, B, tokenize

__all__ = [
    "EMPTY",
    "LENGTH_MASK",
    "TF_SHIFT",
    "Base",
    "FileIndex",
    "IndexCache",
    "Stamp",
    "append_lowered",
    "decode",
    "digest_of",
    "encode",
    "flatten",
    "new_entry",
]

Stamp = tuple[int, int, int, int]

TF_SHIFT = 32
LENGTH_MASK = (1 << TF_SHIFT) - 1
_MAGIC = b"ctxlab-memory-index\x00v1\x00"
_HEADER = struct.Struct("<16s16sQ16sQQQQQQ")
"""fingerprint, name digest, covered bytes, their digest, lines, non-blank lines, terms,
postings, terms blob bytes, lower-cased text bytes."""
_DIGEST = 16
_PROBE = "Probe ALPHA-7 上海港 booking BK_9 夜莺 Σίσυφος İstanbul ﬁ 々 ｱ"


def _fingerprint() -> bytes:
    """Changes when the tokenizer, the scoring constants or the array layout change."""
    text = repr((tokenize(_PROBE), K1, B, sys.byteorder, array("I").itemsize, array("Q").itemsize))
    return hashlib.blake2b(text.encode(), digest_size=_DIGEST).digest()


_FINGERPRINT = _fingerprint()


def digest_of(data: bytes | memoryview) -> bytes:
    """What tells the bytes a file held (SHA-256, cut to 16 bytes)."""
    return hashlib.sha256(data).digest()[:_DIGEST]


def _check(data: bytes | memoryview) -> bytes:
    """The cache file's checksum (CRC-32: it finds a torn or damaged file, fast)."""
    return struct.pack("<I", zlib.crc32(data))


_CHECK = 4


class IndexCache(Protocol):
    """Where the per-file indexes are kept between processes (bytes by file name)."""

    def load(self, name: str) -> bytes | None: ...

    def save(self, name: str, data: bytes) -> None: ...

    def remove(self, name: str) -> None: ...


@dataclass
class Base:
    """Postings in flat arrays (as built, or as loaded from the cache): term ``k``'s postings
    are ``lines[offsets[k]:offsets[k + 1]]`` with ``codes`` = count << 32 | line length."""

    terms: list[str]
    """Sorted (looked up by bisection: no dict to build when loaded)."""
    offsets: array[int]
    lines: array[int]
    codes: array[int]

    def find(self, term: str) -> int | None:
        k = bisect.bisect_left(self.terms, term)
        return k if k < len(self.terms) and self.terms[k] == term else None


EMPTY = Base([], array("Q", [0]), array("I"), array("Q"))


@dataclass
class FileIndex:
    """One file's lines (blank ones included, so index i is line i + 1), ready for queries."""

    name: str
    stamp: Stamp
    covered: int
    """Bytes up to the last newline: what the complete lines came from."""
    digest: bytes
    """Their digest (:func:`digest_of`)."""
    data: bytes
    """The file's bytes as last read (a line's text is decoded from them when it is a hit)."""
    line_starts: array[int]
    """Where each line starts in ``data``."""
    lengths: array[int]
    """Tokens per line (0 for a blank line)."""
    nonblank: int
    total: int
    """The sum of ``lengths`` over the non-blank lines (blank ones have none)."""
    base: Base
    extra: dict[str, tuple[list[int], list[int]]]
    """Postings of the lines added after ``base`` (appended), as lists."""
    partial: Counter[str] | None
    """The tokens of a last line without a newline (not in ``base`` or ``extra``)."""
    lowered: bytes
    """The lines lower-cased, joined by newlines, in UTF-8 (for the literal matches)."""
    starts: list[int]
    """Where each line starts in ``lowered``."""
    cached_lines: int = 0
    """How many complete lines the cache on disk holds (0: none)."""
    complete: int = 0
    """How many of ``lines`` are complete (the rest, at most one, is the partial line)."""
    partial_counts: tuple[int, int] = (0, 0)
    """What the partial line adds to ``nonblank`` and ``total``."""
    from_cache: bool = False

    @property
    def count(self) -> int:
        """How many lines (blank ones and the partial one included)."""
        return len(self.line_starts)

    def line(self, index: int) -> str:
        """Line ``index``'s text (as :func:`harness.fs.files.read_lines` decodes it: the file
        is cut at newlines, which UTF-8 never holds inside a character)."""
        start = self.line_starts[index]
        if index + 1 < len(self.line_starts):
            end = self.line_starts[index + 1] - 1
        else:
            end = len(self.data) - self.data.endswith(b"\n")
        return self.data[start:end].decode("utf-8", errors="replace")


def new_entry(name: str) -> FileIndex:
    return FileIndex(name, (0, 0, 0, 0), 0, digest_of(b""), b"", array("Q"), array("I"), 0, 0,
                      EMPTY, {}, None, b"", [])  # fmt: skip


def append_lowered(entry: FileIndex, text: str, count: int) -> None:
    """Add ``count`` lines (``text``, joined by newlines) to ``entry.lowered``. Lowering
    the joined lines is lowering each: the one rule that looks at neighbours (a final
    sigma) stops at a newline as at the end of a line."""
    if not count:
        return
    lowered = text.lower().encode("utf-8")
    had = bool(entry.starts)
    start = len(entry.lowered) + 1 if had else 0
    widths = map(len, lowered.split(b"\n"))
    steps = map(operator.add, itertools.islice(widths, count - 1), itertools.repeat(1))
    entry.starts.extend(itertools.accumulate(steps, initial=start))
    entry.lowered = b"".join((entry.lowered, b"\n", lowered)) if had else lowered


# --- the cache format ---------------------------------------------------------------------


def flatten(base: Base, extra: dict[str, tuple[list[int], list[int]]]) -> Base:
    if not extra:
        return base
    terms = sorted(set(base.terms).union(extra))
    offsets, lines, codes = array("Q", [0]), array("I"), array("Q")
    for term in terms:
        k = base.find(term)
        if k is not None:
            lo, hi = base.offsets[k], base.offsets[k + 1]
            lines.extend(base.lines[lo:hi])
            codes.extend(base.codes[lo:hi])
        more = extra.get(term)
        if more is not None:
            lines.extend(more[0])
            codes.extend(more[1])
        offsets.append(len(lines))
    return Base(terms, offsets, lines, codes)


def encode(entry: FileIndex, base: Base) -> bytes:
    """The cache file of ``entry``'s complete lines: a header, the arrays, the terms, the
    lower-cased text, a checksum."""
    terms = "\0".join(base.terms).encode("utf-8")
    complete = entry.complete
    if entry.count == complete:
        lowered = entry.lowered
    else:  # leave the partial line out
        lowered = entry.lowered[: entry.starts[complete] - 1] if complete else b""
    header = _HEADER.pack(
        _FINGERPRINT,
        digest_of(entry.name.encode("utf-8")),
        entry.covered,
        entry.digest,
        complete,
        entry.nonblank - entry.partial_counts[0],
        len(base.terms),
        len(base.lines),
        len(terms),
        len(lowered),
    )
    body = b"".join(
        [_MAGIC, header, entry.lengths[:complete].tobytes(), base.offsets.tobytes(),
         base.lines.tobytes(), base.codes.tobytes(), entry.line_starts[:complete].tobytes(),
         array("Q", entry.starts[:complete]).tobytes(), terms, lowered]
    )  # fmt: skip
    return body + _check(body)


def decode(name: str, blob: bytes, data: bytes) -> FileIndex | None:
    """The index in ``blob`` when it is intact, ours, for ``name`` and for a prefix of
    ``data``; None otherwise. A file that passes the checksum but lies (only a hand-made
    one can) gives wrong answers, never an error: a posting outside its file is found as a
    query reads it (:class:`~harness.memory.index_query.DamagedError`)."""
    fields = _checked_header(name, blob, data)
    if fields is None:
        return None
    covered, digest, counts = fields
    n_lines, nonblank, n_terms, n_post, n_blob, n_lowered = counts
    at = len(_MAGIC) + _HEADER.size
    sizes = [n_lines * 4, (n_terms + 1) * 8, n_post * 4, n_post * 8, n_lines * 8, n_lines * 8,
             n_blob, n_lowered]  # fmt: skip
    if at + sum(sizes) + _CHECK != len(blob) or data.count(b"\n", 0, covered) != n_lines:
        return None
    view, parts = memoryview(blob), []
    for size in sizes:
        parts.append(view[at : at + size])
        at += size
    arrays = [array(kind) for kind in "IQIQQQ"]
    for target, part in zip(arrays, parts, strict=False):
        target.frombytes(part)
    lengths, offsets, lines, codes, line_starts, starts = arrays
    terms = bytes(parts[6]).decode("utf-8").split("\0") if n_terms else []
    if (
        len(terms) != n_terms
        or offsets[0] != 0
        or offsets[-1] != n_post
        or nonblank > n_lines
        or (n_lines and (line_starts[0] != 0 or starts[0] != 0))
    ):
        return None
    return FileIndex(name, (0, 0, 0, 0), covered, digest, data, line_starts, lengths,
                     nonblank, sum(lengths), Base(terms, offsets, lines, codes), {}, None,
                     bytes(parts[7]), starts.tolist(), cached_lines=n_lines, complete=n_lines,
                     from_cache=True)  # fmt: skip


def _checked_header(
    name: str, blob: bytes, data: bytes
) -> tuple[int, bytes, tuple[int, ...]] | None:
    """``blob``'s header after its checksum, format, fingerprint, name and the digest of the
    bytes of ``data`` it covers were checked (None: one failed); the fields after the name."""
    if len(blob) < len(_MAGIC) + _HEADER.size + _CHECK or not blob.startswith(_MAGIC):
        return None
    if _check(memoryview(blob)[:-_CHECK]) != blob[-_CHECK:]:
        return None  # torn or changed
    fingerprint, name_digest, covered, digest, *rest = _HEADER.unpack_from(blob, len(_MAGIC))
    if fingerprint != _FINGERPRINT or name_digest != digest_of(name.encode("utf-8")):
        return None
    if covered > len(data) or (covered and data[covered - 1] != 0x0A):
        return None
    if digest_of(memoryview(data)[:covered]) != digest:
        return None  # the file is not (a grown copy of) what was indexed
    return covered, digest, tuple(rest)
