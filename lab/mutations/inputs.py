"""What a mutation matrix was computed from, so that a check can tell a current matrix from a
stale one without computing it again.

Every cell of ``mutations.csv`` is a function of the code (``harness/``, ``lab/``,
``experiments/``), the recordings (``cassettes/``) and the pinned libraries
(``pyproject.toml``, ``constraints.txt``); the seeds reach it only through
``lab/seed_sections.py``, which is code. :func:`inputs_digest` hashes all of them;
``ctxlab mutations`` writes the digest beside the matrix (:data:`INPUTS_FILE`) when it computed
every experiment. A check whose digest equals the recorded one knows the committed matrix was
computed from this very tree, and needs to recompute only a sample to catch a hand-edited cell
(:func:`sample_of`); any other check recomputes the whole matrix.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from harness.fs.files import write_atomic

__all__ = [
    "INPUTS_FILE",
    "INPUT_FILES",
    "INPUT_FOLDERS",
    "inputs_digest",
    "recorded_digest",
    "recorded_reach",
    "sample_of",
    "write_inputs",
]

INPUTS_FILE = "mutations.inputs.json"
"""Beside ``mutations.csv``: the digest of the tree the whole matrix was computed from."""
INPUT_FOLDERS = ("harness", "lab", "experiments")
"""The code's folders, under the folder that holds the packages (:data:`lab.project.SOURCE_ROOT`:
the checkout in an editable install)."""
INPUT_FILES = ("pyproject.toml", "constraints.txt")
_SKIPPED_PARTS = frozenset({"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})


def _files_under(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        parts = path.relative_to(folder).parts
        bytecode = path.name.endswith((".pyc", ".pyo"))
        if path.is_file() and not bytecode and not _SKIPPED_PARTS.intersection(parts):
            yield path


def _inputs(source_root: Path, cassettes: Path) -> Iterator[tuple[str, Path]]:
    """Each input file, named as it is hashed: relative to ``source_root``, the recordings as
    ``cassettes/…`` wherever their folder is."""
    for name in INPUT_FILES:
        if (source_root / name).is_file():
            yield name, source_root / name
    for folder in INPUT_FOLDERS:
        for path in _files_under(source_root / folder):
            yield path.relative_to(source_root).as_posix(), path
    for path in _files_under(cassettes):
        yield f"cassettes/{path.relative_to(cassettes).as_posix()}", path


def inputs_digest(source_root: Path, cassettes: Path) -> str:
    """The SHA-256 of every input of the matrix: each file's name and bytes, in a fixed order
    (caches and bytecode left out)."""
    digest = hashlib.sha256()
    for name, path in _inputs(source_root, cassettes):
        digest.update(name.encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def write_inputs(
    out_dir: Path, digest: str | None, reach: Mapping[str, Sequence[str]] | None = None
) -> Path:
    """Record ``digest`` beside the matrix in ``out_dir``; None (a matrix of some experiments
    only, whose other rows may be older) records that no digest vouches for it. With it, the
    experiments each mutation could reach in that tree (:mod:`lab.mutations.reach`), which a
    check of the same tree reuses rather than tracing the runs again."""
    path = Path(out_dir) / INPUTS_FILE
    data: dict[str, object] = {"inputs_sha256": digest}
    if digest is not None and reach is not None:
        data["reach"] = {name: list(reach[name]) for name in sorted(reach)}
    write_atomic(path, json.dumps(data, indent=2) + "\n")
    return path


def _recorded(out_dir: Path) -> dict[str, object]:
    try:
        data = json.loads((Path(out_dir) / INPUTS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def recorded_digest(out_dir: Path) -> str | None:
    """The digest recorded beside the matrix in ``out_dir``; None when there is none or it
    cannot be read (the check then recomputes everything)."""
    value = _recorded(out_dir).get("inputs_sha256")
    return value if isinstance(value, str) else None


def recorded_reach(out_dir: Path) -> dict[str, list[str]] | None:
    """The experiments each mutation could reach, recorded with the digest; None when absent
    or malformed (the check then traces the runs again). Valid only while the digest is the
    tree's."""
    value = _recorded(out_dir).get("reach")
    if not isinstance(value, dict):
        return None
    fine = all(isinstance(v, list) and all(isinstance(e, str) for e in v) for v in value.values())
    return {str(k): list(v) for k, v in value.items()} if fine else None


def sample_of(names: Sequence[str], size: int, day: datetime.date | None = None) -> list[str]:
    """``size`` of ``names``, the same all day (UTC) and another the next: over the days every
    mutation is recomputed, and a day's check can be rerun as it ran."""
    day = day or datetime.datetime.now(datetime.UTC).date()
    if size >= len(names):
        return list(names)
    chosen = set(random.Random(day.toordinal()).sample(list(names), size))
    return [name for name in names if name in chosen]
