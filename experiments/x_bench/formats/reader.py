"""Read a conversations file in any format ``ctxlab bench --format`` takes (``auto``: detected),
the first ``limit`` items only when asked (read one at a time: :mod:`.stream`), saying how far
it is on long work and, at the end, how many facts were left unanchored (kept, scored by
nothing: :mod:`.assemble`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from experiments.x_bench.formats import compactbench, ctxlab, locomo, longmemeval
from experiments.x_bench.formats.detect import FORMATS, detect
from experiments.x_bench.formats.stream import first_items
from experiments.x_bench.schema import (
    BenchFileError,
    Conversation,
    items_of,
    read_json,
    unique_ids,
)

__all__ = ["FORMATS", "Import", "read_conversations", "unanchored_line"]

READERS = {
    ctxlab.FORMAT: ctxlab.conversation,
    longmemeval.FORMAT: longmemeval.conversation,
    locomo.FORMAT: locomo.conversation,
}
PROGRESS_SECONDS = 5.0
"""How often a long read says how far it is."""


@dataclass(frozen=True)
class Import:
    """What was read: the format, the conversations, and the facts left unanchored."""

    format: str
    conversations: list[Conversation]

    @property
    def facts(self) -> int:
        return sum(len(c.facts) for c in self.conversations)

    @property
    def unanchored(self) -> int:
        return sum(bool(f.unanchored) for c in self.conversations for f in c.facts)


def _json_items(path: Path, limit: int | None) -> Sequence[Any]:
    """The file's items: all of it (refused whole over the limits), or its first ``limit``
    read one at a time (:mod:`.stream`: a file over the size limit may then be read)."""
    if limit is not None:
        return items_of(list(first_items(path, limit)), path)
    return items_of(read_json(path), path)


def _converted(
    reader: Callable[[Any, str, str], Conversation],
    items: Sequence[Any],
    path: Path,
    say: Callable[[str], None],
) -> Iterable[Conversation]:
    last = time.monotonic()
    for n, item in enumerate(items):
        yield reader(item, f"{path.name} item {n}", path.name)
        if time.monotonic() - last >= PROGRESS_SECONDS:
            say(f"read {n + 1} of {len(items)} item(s) of {path}")
            last = time.monotonic()


def read_conversations(
    path: Path,
    format: str = "auto",
    *,
    limit: int | None = None,
    cases: int = 1,
    difficulty: str = "medium",
    say: Callable[[str], None] = lambda _: None,
) -> Import:
    """The conversations of ``path`` in ``format`` (``auto``: :func:`detect`); ``limit``: the
    first items only (for CompactBench, the first cases of the suite); ``cases``: CompactBench
    cases per template."""
    if format not in ("auto", *FORMATS):
        raise BenchFileError(f"--format takes auto, {', '.join(FORMATS)}; not {format!r}.")
    if limit is not None and limit < 1:
        raise BenchFileError(f"--limit must be at least 1, not {limit}.")
    if not path.exists():
        raise BenchFileError(f"The conversations file {path} does not exist.")
    templates = path.is_dir() or compactbench.looks_like(path)
    if format == compactbench.FORMAT or (format == "auto" and templates):
        found = compactbench.conversations(path, cases, difficulty, say)
        chosen = list(islice(found, limit)) if limit is not None else list(found)
        return Import(compactbench.FORMAT, unique_ids(chosen, path.name))
    if path.is_dir():
        raise BenchFileError(f"{path} is a folder; only --format compactbench reads one.")
    items = _json_items(path, limit)
    name = detect(path, items) if format == "auto" else format
    chosen = list(_converted(READERS[name], items, path, say))
    return Import(name, unique_ids(chosen, path.name))


def unanchored_line(found: Import, path: Path) -> str:
    """The summary line: what was read, and how many facts are unanchored (not scored)."""
    line = f"read {len(found.conversations)} conversation(s), {found.facts} fact(s) from {path} "
    line += f"({found.format})"
    if found.unanchored:
        line += (
            f"; {found.unanchored} fact(s) unanchored (the answer occurs verbatim in none of "
            "its evidence turns): kept in the conversations, left out of survival and answers"
        )
    return line
