"""The commit journal of a reports folder, read as hostile input.

A ``ctxlab run`` swaps its scratch folder in for ``--out`` by two renames; between them a
journal ``.<name>.commit`` beside ``--out`` names the scratch folder (``new``) and where the old
folder went (``old``), so the next run can finish or roll back a swap a crash cut short
(:mod:`lab.staging`). The journal sits in ``--out``'s parent, which may be a shared
folder such as ``/tmp`` where anyone can write, and a crash can leave it cut short. So it is
never obeyed blindly: :func:`read_journal` accepts only the two names this ``--out``'s own runs
write (``.<name>.staging-<pid>-<8 hex>`` and ``.<name>.old-<pid>-<8 hex>``: plain single path
components, confined to the parent); anything else (a cut or foreign file, other names, ``../``,
a symbolic link) is moved aside to ``.<name>.commit.corrupt``, never deleted, and said in one
sentence.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.json_depth import loads

__all__ = ["Journal", "journal_path", "old_name", "read_journal", "scratch_name", "write_journal"]

MAX_JOURNAL_BYTES = 4096
"""Far more than the two names a journal holds; a larger file is not one of ours."""


@dataclass(frozen=True)
class Journal:
    """A swap in progress: the scratch folder being moved in and where the old folder went."""

    new: Path
    old: Path


def journal_path(parent: Path, name: str) -> Path:
    return parent / f".{name}.commit"


def scratch_name(name: str) -> re.Pattern[str]:
    """The scratch folders of ``--out`` named ``name``: ``.<name>.staging-<pid>-<8 hex>``."""
    return re.compile(rf"\.{re.escape(name)}\.staging-(\d+)-[0-9a-f]{{8}}")


def old_name(name: str) -> re.Pattern[str]:
    """Where a swap puts the old folder: ``.<name>.old-<pid>-<8 hex>``."""
    return re.compile(rf"\.{re.escape(name)}\.old-(\d+)-[0-9a-f]{{8}}")


def write_journal(parent: Path, name: str, new: Path, old: Path) -> None:
    """Write the journal atomically (temp, fsync, rename); ``new`` and ``old`` are in ``parent``."""
    journal = journal_path(parent, name)
    scratch = journal.with_name(journal.name + ".tmp")
    scratch.write_text(json.dumps({"new": new.name, "old": old.name}), encoding="utf-8")
    with open(scratch, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(scratch, journal)


def read_journal(
    parent: Path, name: str, say: Callable[[str], None] | None = None
) -> Journal | None:
    """The journal beside ``--out``, or None when there is none or it is not one of ours (then
    it is moved aside and one line says so through ``say``)."""
    journal = journal_path(parent, name)
    try:
        mode = os.lstat(journal).st_mode
    except FileNotFoundError:
        return None
    problem = _problem(journal, mode, name)
    if isinstance(problem, Journal):
        return problem
    aside = _aside(journal)
    os.rename(journal, aside)
    (say or _stderr)(
        f"ctxlab: ignored the commit journal {journal} ({problem}); moved it to {aside.name}, "
        "nothing it names was touched"
    )
    return None


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _problem(journal: Path, mode: int, name: str) -> Journal | str:
    """The journal it holds, or why it is not one of ours."""
    if not stat.S_ISREG(mode):
        return "not a regular file"
    with open(journal, "rb") as handle:
        data = handle.read(MAX_JOURNAL_BYTES + 1)
    if len(data) > MAX_JOURNAL_BYTES:
        return f"larger than {MAX_JOURNAL_BYTES} bytes"
    try:
        entry = loads(data)
    except (ValueError, UnicodeDecodeError):
        return "not valid JSON: cut short or not written by ctxlab"
    if not isinstance(entry, dict) or set(entry) != {"new", "old"}:
        return 'not an object with exactly "new" and "old"'
    new, old = entry["new"], entry["old"]
    if not isinstance(new, str) or not scratch_name(name).fullmatch(new):
        return f"its new folder {new!r} is not a scratch folder of this --out"
    if not isinstance(old, str) or not old_name(name).fullmatch(old):
        return f"its old folder {old!r} is not a set-aside folder of this --out"
    return Journal(journal.parent / new, journal.parent / old)


def _aside(journal: Path) -> Path:
    """A free name beside the journal: ``.commit.corrupt``, then ``.commit.corrupt-2`` …"""
    aside = journal.with_name(journal.name + ".corrupt")
    number = 1
    while os.path.lexists(aside):
        number += 1
        aside = journal.with_name(f"{journal.name}.corrupt-{number}")
    return aside
